# sysroot.cmake - a toolchain file: this machine's compiler, another
# system's headers and libraries (docs/install.md, "The portable tarball").
#
#   cmake -S . -B build-dist/portable -DCMAKE_TOOLCHAIN_FILE=cmake/sysroot.cmake \
#         -DVX_SYSROOT=$PWD/build-dist/sysroot -DVX_PORTABLE=ON -DVX_CJSON_SOURCE=...
#
# scripts/release.sh makes the sysroot (build-dist/sysroot): a Debian 11
# root (glibc 2.31) with the static libraries vx links. A binary linked against a glibc runs on
# that glibc and every later one; linked against Debian 12's (2.36) it
# asked for GLIBC_2.34 (__libc_start_main, pthread_create, dlopen: the
# objects every program starts from, which no flag can make older), so
# the floor is set by the headers and libraries linked, not the compiler.
# Same architecture: the vx built runs here too (the completion scripts
# are written by it at build time). cmake/aarch64-linux-gnu.cmake sets
# VX_SYSROOT_ARCH and includes this file for a cross build.
if(NOT VX_SYSROOT)
  message(FATAL_ERROR "cmake/sysroot.cmake: set VX_SYSROOT to the root to build against")
endif()
set(CMAKE_SYSROOT "${VX_SYSROOT}")
# Clang, which takes a sysroot whole: its C library and the GCC runtime
# installed in it (crtbegin.o, libgcc, libgcc_eh). GCC 12 with --sysroot
# still took its own: its start files found the host's glibc first (a vx
# asking for GLIBC_2.34), and its libgcc_eh.a calls _dl_find_object
# (glibc 2.35), which a static vx-sandbox-init cannot link against 2.31.
set(CMAKE_C_COMPILER clang)
# The toolchain file is read again in try_compile's projects.
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES VX_SYSROOT)

# Libraries and headers only from the sysroot; programs (git, scdoc) from
# this machine.
set(CMAKE_FIND_ROOT_PATH "${VX_SYSROOT}")
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# pkg-config reads the sysroot's .pc files, and prefixes their paths with it.
# (Debian's multiarch directory: CMAKE_LIBRARY_ARCHITECTURE is not known yet.)
if(VX_SYSROOT_ARCH)
  set(vx_multiarch "${VX_SYSROOT_ARCH}-linux-gnu")
else()
  set(vx_multiarch "${CMAKE_HOST_SYSTEM_PROCESSOR}-linux-gnu")
endif()
set(ENV{PKG_CONFIG_SYSROOT_DIR} "${VX_SYSROOT}")
set(ENV{PKG_CONFIG_LIBDIR}
    "${VX_SYSROOT}/usr/lib/${vx_multiarch}/pkgconfig:${VX_SYSROOT}/usr/lib/pkgconfig:${VX_SYSROOT}/usr/share/pkgconfig")
set(ENV{PKG_CONFIG_PATH} "")
