# version.cmake - what `vx version` says besides PROJECT_VERSION (the one
# version number, project() in CMakeLists.txt): the commit built and how
# (src/orchestrator/cli/version.c). Only that file gets the defines, so a new commit
# recompiles one file.
set(VX_COMMIT unknown)
find_package(Git QUIET)
if(GIT_FOUND)
  execute_process(COMMAND ${GIT_EXECUTABLE} rev-parse --short HEAD
                  WORKING_DIRECTORY ${CMAKE_SOURCE_DIR} RESULT_VARIABLE rc
                  OUTPUT_VARIABLE out OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(rc EQUAL 0 AND out)
    set(VX_COMMIT ${out})
    # A commit (or a checkout) configures again, so the commit said is the
    # one built, not the one the build tree was first made at.
    execute_process(COMMAND ${GIT_EXECUTABLE} rev-parse --absolute-git-dir
                    WORKING_DIRECTORY ${CMAKE_SOURCE_DIR}
                    OUTPUT_VARIABLE git_dir OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    execute_process(COMMAND ${GIT_EXECUTABLE} symbolic-ref -q HEAD
                    WORKING_DIRECTORY ${CMAKE_SOURCE_DIR}
                    OUTPUT_VARIABLE head_ref OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    foreach(f HEAD ${head_ref} packed-refs)
      if(git_dir AND EXISTS "${git_dir}/${f}")
        set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${git_dir}/${f}")
      endif()
    endforeach()
  endif()
endif()

set(VX_BUILD "${CMAKE_BUILD_TYPE}, ${CMAKE_C_COMPILER_ID} ${CMAKE_C_COMPILER_VERSION}, ${CMAKE_SYSTEM_NAME} ${CMAKE_SYSTEM_PROCESSOR}")
set(VX_SANITIZERS "")
if(VX_SANITIZE)
  set(VX_SANITIZERS "address, undefined")
elseif(VX_FUZZ)
  set(VX_SANITIZERS "fuzzer, address, undefined")
endif()
set_source_files_properties(${CMAKE_SOURCE_DIR}/src/orchestrator/cli/version.c PROPERTIES COMPILE_DEFINITIONS
  "VX_COMMIT=\"${VX_COMMIT}\";VX_BUILD=\"${VX_BUILD}\";VX_SANITIZERS=\"${VX_SANITIZERS}\"")
