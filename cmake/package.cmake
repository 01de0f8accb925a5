# package.cmake - the .deb (CPack's DEB generator; docs/install.md): what
# `cmake --install` puts under /usr, as one Debian package. scripts/release.sh
# makes it:
#
#   cmake -S . -B build-deb -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX=/usr
#   cmake --build build-deb && (cd build-deb && cpack -G DEB)
set(CPACK_PACKAGE_NAME vx)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_VENDOR "vx developers")
set(VX_DEB_MAINTAINER "vx developers <dev@vx.local>" CACHE STRING "the .deb's Maintainer field")
set(CPACK_PACKAGE_CONTACT "${VX_DEB_MAINTAINER}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "build orchestrator for monorepos, with sandboxed and traced tasks")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)

set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT) # vx_VERSION-1_ARCH.deb
set(CPACK_DEBIAN_PACKAGE_RELEASE 1)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
# the long description; CPack puts the summary above it
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION
    "vx runs a workspace's tasks (vx run build) in dependency order, in parallel,
skipping what it built before from the same inputs: a content-hashed local
cache and Turborepo's remote cache API. It reads a Turborepo repository's
turbo.json as it is.
.
A task that asks for it runs inside a bubblewrap sandbox that lets it read
and write only what its vx.yaml declares, traced by strace: an undeclared
read fails the task, stays out of the cache, and vx prints the config
lines that would grant it.")

# What vx links (libyaml, cJSON, xxHash, zstd, libc), from dpkg-shlibdeps;
# and what it runs: bwrap and strace for a sandboxed task (vx runs without
# them, and refuses a task with sandbox: saying what to install). socat is
# not among them: vx carries a task's network grants across the sandbox
# wall with its own helper (src/sandbox/netd.c). libcurl and libcrypto are
# opened at first use (a remote cache, signed artifacts), never linked, so
# they are recommended, not depended on: without them vx loses the remote
# cache alone, and says so.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "bubblewrap, strace")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "libcurl4, libssl3")

# The portable build (the arm64 .deb: scripts/release.sh builds it on an
# x86_64 machine against a Debian 11 arm64 sysroot) links all but glibc
# in, so libc6 is its one library: at the version of the sysroot's glibc,
# the newest symbol version such a binary can ask for. dpkg-shlibdeps is
# not run: it reads this machine's installed packages, which are not the
# target architecture's.
if(VX_PORTABLE AND CMAKE_SYSROOT)
  file(STRINGS "${CMAKE_SYSROOT}/usr/include/features.h" vx_glibc_major REGEX "^#define[ \t]+__GLIBC__[ \t]")
  file(STRINGS "${CMAKE_SYSROOT}/usr/include/features.h" vx_glibc_minor REGEX "^#define[ \t]+__GLIBC_MINOR__[ \t]")
  string(REGEX REPLACE ".*[ \t]([0-9]+)$" "\\1" vx_glibc_major "${vx_glibc_major}")
  string(REGEX REPLACE ".*[ \t]([0-9]+)$" "\\1" vx_glibc_minor "${vx_glibc_minor}")
  if(NOT vx_glibc_major MATCHES "^[0-9]+$" OR NOT vx_glibc_minor MATCHES "^[0-9]+$")
    message(FATAL_ERROR "package.cmake: no glibc version in ${CMAKE_SYSROOT}/usr/include/features.h")
  endif()
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS OFF)
  set(CPACK_DEBIAN_PACKAGE_DEPENDS "libc6 (>= ${vx_glibc_major}.${vx_glibc_minor}), bubblewrap, strace")
endif()
# Debian's name of the target's architecture: CPack would ask this
# machine's dpkg, which names its own.
if(CMAKE_CROSSCOMPILING)
  if(CMAKE_SYSTEM_PROCESSOR STREQUAL "aarch64")
    set(CPACK_DEBIAN_PACKAGE_ARCHITECTURE arm64)
  elseif(CMAKE_SYSTEM_PROCESSOR STREQUAL "x86_64")
    set(CPACK_DEBIAN_PACKAGE_ARCHITECTURE amd64)
  else()
    message(FATAL_ERROR "package.cmake: no Debian architecture for ${CMAKE_SYSTEM_PROCESSOR}")
  endif()
endif()

set(CPACK_GENERATOR DEB)
include(CPack)
