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
