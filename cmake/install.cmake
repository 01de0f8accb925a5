# install.cmake - what `cmake --install` puts where (docs/install.md): vx in
# bin/, its sandbox init in libexec/vx/ (as git keeps libexec/git-core: a
# helper no user runs, found by vx from its own path, never from PATH), the
# docs with the README's links kept working.
include(GNUInstallDirs)

install(TARGETS vx RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS vx-sandbox-init RUNTIME DESTINATION ${CMAKE_INSTALL_LIBEXECDIR}/vx)

# README.md links docs/NAME.md: the same layout under the doc dir.
install(FILES ${CMAKE_SOURCE_DIR}/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
file(GLOB VX_DOCS CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/docs/*.md)
install(FILES ${VX_DOCS} DESTINATION ${CMAKE_INSTALL_DOCDIR}/docs)

# vx finds its init from its own directory (src/sandbox/initpath.c): the
# way from BINDIR to LIBEXECDIR/vx, relative when both are, so that a
# tree installed with another --prefix, or moved whole, still holds.
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBEXECDIR}")
  set(VX_INIT_FROM_BIN "${CMAKE_INSTALL_LIBEXECDIR}/vx")
else()
  file(RELATIVE_PATH VX_INIT_FROM_BIN "/prefix/${CMAKE_INSTALL_BINDIR}"
       "/prefix/${CMAKE_INSTALL_LIBEXECDIR}/vx")
endif()
set_source_files_properties(${CMAKE_SOURCE_DIR}/src/sandbox/initpath.c PROPERTIES
  COMPILE_DEFINITIONS "VX_INIT_FROM_BIN=\"${VX_INIT_FROM_BIN}\"")

# The shells' completion scripts, written by the vx just built (so they
# hold its verbs and options as its parser has them), where each shell's
# packaged completions go. A cross build runs it through its emulator, or
# has none.
set(VX_COMPLETIONS ${CMAKE_BINARY_DIR}/completions)
if(CMAKE_CROSSCOMPILING AND NOT CMAKE_CROSSCOMPILING_EMULATOR)
  message(STATUS "vx: cross-compiling with no emulator: no completion scripts")
else()
  add_custom_command(
    OUTPUT ${VX_COMPLETIONS}/vx ${VX_COMPLETIONS}/_vx ${VX_COMPLETIONS}/vx.fish
    COMMAND ${CMAKE_COMMAND} -E make_directory ${VX_COMPLETIONS}
    COMMAND ${CMAKE_COMMAND} -DVX=$<TARGET_FILE:vx> -DDIR=${VX_COMPLETIONS}
            "-DEMULATOR=${CMAKE_CROSSCOMPILING_EMULATOR}" -P ${CMAKE_SOURCE_DIR}/cmake/completions.cmake
    DEPENDS vx ${CMAKE_SOURCE_DIR}/cmake/completions.cmake
    COMMENT "vx completion bash, zsh, fish" VERBATIM)
  add_custom_target(vx-completions ALL
    DEPENDS ${VX_COMPLETIONS}/vx ${VX_COMPLETIONS}/_vx ${VX_COMPLETIONS}/vx.fish)
  install(FILES ${VX_COMPLETIONS}/vx DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions)
  install(FILES ${VX_COMPLETIONS}/_vx DESTINATION ${CMAKE_INSTALL_DATADIR}/zsh/vendor-completions)
  install(FILES ${VX_COMPLETIONS}/vx.fish DESTINATION ${CMAKE_INSTALL_DATADIR}/fish/vendor_completions.d)
endif()

# The man pages, from their scdoc sources in docs/man/ (one per main verb);
# a machine without scdoc builds vx without them, and says so.
find_program(SCDOC scdoc)
file(GLOB VX_MAN_SOURCES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/docs/man/*.scd)
if(SCDOC)
  set(VX_MAN_PAGES)
  foreach(src ${VX_MAN_SOURCES})
    get_filename_component(page ${src} NAME_WLE) # vx-run.1
    string(REGEX REPLACE ".*\\.([0-9])$" "\\1" section ${page})
    set(out ${CMAKE_BINARY_DIR}/man/${page})
    add_custom_command(
      OUTPUT ${out}
      COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_BINARY_DIR}/man
      COMMAND ${CMAKE_COMMAND} -DSCDOC=${SCDOC} -DIN=${src} -DOUT=${out}
              -P ${CMAKE_SOURCE_DIR}/cmake/scdoc.cmake
      DEPENDS ${src} ${CMAKE_SOURCE_DIR}/cmake/scdoc.cmake
      COMMENT "scdoc ${page}" VERBATIM)
    list(APPEND VX_MAN_PAGES ${out})
    install(FILES ${out} DESTINATION ${CMAKE_INSTALL_MANDIR}/man${section})
  endforeach()
  add_custom_target(vx-man ALL DEPENDS ${VX_MAN_PAGES})
else()
  message(STATUS "vx: scdoc not found: no man pages (apt install scdoc)")
endif()
