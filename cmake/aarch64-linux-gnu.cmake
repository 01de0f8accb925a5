# aarch64-linux-gnu.cmake - a toolchain file: vx for arm64 Linux, built on
# an x86_64 Debian against an arm64 sysroot (docs/install.md, "The arm64
# build"), its programs run by qemu-user.
#
#   cmake -S . -B build-dist/arm64 -DCMAKE_TOOLCHAIN_FILE=cmake/aarch64-linux-gnu.cmake \
#         -DVX_SYSROOT=$PWD/build-dist/sysroot-arm64 -DVX_PORTABLE=ON -DVX_CJSON_SOURCE=...
#
# scripts/release.sh makes the sysroot: Debian 11's arm64 glibc 2.31, GCC
# 10's runtime and the static libraries vx links, as the x86_64 portable
# build's (cmake/sysroot.cmake, which this file includes), so that both
# ask the same glibc floor.
#
# The compiler is clang with --target=aarch64-linux-gnu, the linker and
# binutils Debian's cross ones (binutils-aarch64-linux-gnu). Not Debian's
# gcc-aarch64-linux-gnu: GCC 12's cross libgcc_eh.a calls _dl_find_object
# (glibc 2.35), which the static vx-sandbox-init cannot link against 2.31
# ("undefined reference to `_dl_find_object'"), the same failure as the
# host's GCC 12 with a sysroot; clang takes the sysroot's GCC 10 runtime.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(VX_SYSROOT_ARCH aarch64)
set(CMAKE_C_COMPILER_TARGET aarch64-linux-gnu)
include(${CMAKE_CURRENT_LIST_DIR}/sysroot.cmake)
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES VX_SYSROOT_ARCH)

# binutils for arm64: clang finds aarch64-linux-gnu-ld by its target; CPack
# strips with CMAKE_STRIP (llvm-strip 14 refuses the static init: "Link
# field value 27 in section .rela.plt is not a symbol table").
find_program(VX_CROSS_STRIP aarch64-linux-gnu-strip)
find_program(VX_CROSS_LD aarch64-linux-gnu-ld)
if(NOT VX_CROSS_STRIP OR NOT VX_CROSS_LD)
  message(FATAL_ERROR "cmake/aarch64-linux-gnu.cmake: no aarch64-linux-gnu-ld or -strip: "
                      "apt-get install binutils-aarch64-linux-gnu (scripts/install-deps.sh cross)")
endif()
set(CMAKE_STRIP "${VX_CROSS_STRIP}" CACHE FILEPATH "arm64 strip")

# The arm64 programs the build runs (vx writes the completion scripts) and
# ctest's unit tests, under qemu-user, with the sysroot's dynamic loader
# and libc (-L). Without qemu-aarch64 a build has no completions and no
# test runs (cmake/install.cmake says so).
find_program(VX_QEMU_AARCH64 qemu-aarch64)
if(VX_QEMU_AARCH64)
  set(CMAKE_CROSSCOMPILING_EMULATOR "${VX_QEMU_AARCH64};-L;${VX_SYSROOT}")
endif()
