# portable.cmake - -DVX_PORTABLE=ON: a vx that runs on any Linux of its
# architecture with a glibc as old as the one it is linked against
# (docs/install.md, "The portable tarball"). scripts/release.sh builds it
# against a Debian 11 sysroot (cmake/sysroot.cmake).
#
# - libyaml, xxHash and zstd are linked in from their -dev packages'
#   static archives: not every system has them, and none has them at the
#   version a vx built elsewhere wants.
# - cJSON likewise, but Debian's libcjson-dev ships no libcjson.a (11, 12
#   and 13): cJSON.c itself is compiled from VX_CJSON_SOURCE, a directory
#   holding Debian's source of the same version as the headers (release.sh
#   fetches it with apt-get source).
# - libcurl and libcrypto stay opened at first use (src/cache/curl_lib.h):
#   a system without them loses the remote cache alone, with a message.
# - what vx calls of a newer glibc than the sysroot's comes from
#   portable/glibc_compat.c, forced in by name (glibc_compat.h).
if(NOT VX_PORTABLE)
  return()
endif()

set(VX_CJSON_SOURCE "" CACHE PATH "a directory with cJSON.c, when there is no libcjson.a")

# PREFIX: the pkg_check_modules prefix in CMakeLists.txt. Points its
# imported target at the static archive of each library it names.
function(vx_link_static prefix)
  set(archives)
  foreach(lib ${${prefix}_LIBRARIES})
    unset(found CACHE)
    find_library(found NAMES lib${lib}.a HINTS ${${prefix}_LIBRARY_DIRS} NO_DEFAULT_PATH)
    if(NOT found)
      find_library(found NAMES lib${lib}.a)
    endif()
    if(NOT found)
      message(FATAL_ERROR "VX_PORTABLE: no lib${lib}.a (pkg-config ${prefix}: ${${prefix}_LIBRARY_DIRS})")
    endif()
    list(APPEND archives ${found})
    unset(found CACHE)
  endforeach()
  set_property(TARGET PkgConfig::${prefix} PROPERTY INTERFACE_LINK_LIBRARIES ${archives})
  message(STATUS "vx: portable: ${prefix} from ${archives}")
endfunction()

vx_link_static(YAML)
vx_link_static(XXHASH)
vx_link_static(ZSTD)
# ncursesw and its libtinfo: the terminfo database itself is the system's
# (/etc/terminfo, /lib/terminfo, /usr/share/terminfo); a TERM it lacks
# makes `vx run` stream, saying so (docs/output.md).
vx_link_static(NCURSES)

find_library(VX_CJSON_ARCHIVE NAMES libcjson.a HINTS ${CJSON_LIBRARY_DIRS})
if(VX_CJSON_ARCHIVE)
  vx_link_static(CJSON)
elseif(EXISTS "${VX_CJSON_SOURCE}/cJSON.c")
  add_library(vx_cjson STATIC ${VX_CJSON_SOURCE}/cJSON.c)
  # its own header, which is the one vx includes (<cjson/cJSON.h>, the same
  # version: release.sh takes both from one Debian version)
  target_include_directories(vx_cjson PRIVATE ${VX_CJSON_SOURCE})
  target_compile_options(vx_cjson PRIVATE -w)
  target_link_libraries(vx_cjson PUBLIC m)
  set_property(TARGET PkgConfig::CJSON PROPERTY INTERFACE_LINK_LIBRARIES vx_cjson)
  message(STATUS "vx: portable: CJSON from ${VX_CJSON_SOURCE}/cJSON.c")
else()
  message(FATAL_ERROR "VX_PORTABLE: no libcjson.a (Debian's libcjson-dev has none): "
                      "set VX_CJSON_SOURCE to a directory holding cJSON.c")
endif()

# glibc's calls newer than the sysroot's, each checked against it.
include(CheckSymbolExists)
set(CMAKE_REQUIRED_DEFINITIONS -D_GNU_SOURCE)
set(vx_compat)
check_symbol_exists(close_range unistd.h VX_HAVE_CLOSE_RANGE)
if(NOT VX_HAVE_CLOSE_RANGE)
  list(APPEND vx_compat VX_COMPAT_CLOSE_RANGE)
endif()
check_symbol_exists(CLOSE_RANGE_CLOEXEC linux/close_range.h VX_HAVE_CLOSE_RANGE_CLOEXEC)
if(NOT VX_HAVE_CLOSE_RANGE_CLOEXEC)
  list(APPEND vx_compat VX_COMPAT_CLOSE_RANGE_CLOEXEC)
endif()
check_symbol_exists(sigabbrev_np string.h VX_HAVE_SIGABBREV_NP)
if(NOT VX_HAVE_SIGABBREV_NP)
  list(APPEND vx_compat VX_COMPAT_SIGABBREV_NP)
endif()
unset(CMAKE_REQUIRED_DEFINITIONS)
if(vx_compat)
  message(STATUS "vx: portable: glibc_compat for ${vx_compat}")
  set(header ${CMAKE_SOURCE_DIR}/cmake/portable/glibc_compat.h)
  # PUBLIC: vx and the unit tests compile against vxcore's headers too
  target_compile_definitions(vxcore PUBLIC ${vx_compat})
  target_compile_options(vxcore PUBLIC -include ${header})
  target_sources(vxcore PRIVATE ${CMAKE_SOURCE_DIR}/cmake/portable/glibc_compat.c)
  target_compile_definitions(vx-sandbox-init PRIVATE ${vx_compat})
  target_compile_options(vx-sandbox-init PRIVATE -include ${header})
  target_sources(vx-sandbox-init PRIVATE ${CMAKE_SOURCE_DIR}/cmake/portable/glibc_compat.c)
endif()

