# `cmake --install` and `make deb` (CPack's DEB generator): the binaries, a man page per
# subcommand and the bash/zsh/fish completions (all three made by the built agentbox from the
# tables its --help prints: `agentbox __man`, `agentbox __completion`), the systemd units, the docs.
include(GNUInstallDirs)

set(AGENTBOX_MAN_DIR ${CMAKE_CURRENT_BINARY_DIR}/man)
set(AGENTBOX_COMPLETION_DIR ${CMAKE_CURRENT_BINARY_DIR}/completion)
add_custom_command(
  OUTPUT ${AGENTBOX_MAN_DIR}/agentbox.1 ${AGENTBOX_COMPLETION_DIR}/agentbox
         ${AGENTBOX_COMPLETION_DIR}/_agentbox ${AGENTBOX_COMPLETION_DIR}/agentbox.fish
  COMMAND ${CMAKE_COMMAND} -E rm -rf ${AGENTBOX_MAN_DIR}
  COMMAND ${CMAKE_COMMAND} -E make_directory ${AGENTBOX_MAN_DIR} ${AGENTBOX_COMPLETION_DIR}
  COMMAND agentbox __man --all ${AGENTBOX_MAN_DIR}
  COMMAND agentbox __completion bash > ${AGENTBOX_COMPLETION_DIR}/agentbox
  COMMAND agentbox __completion zsh > ${AGENTBOX_COMPLETION_DIR}/_agentbox
  COMMAND agentbox __completion fish > ${AGENTBOX_COMPLETION_DIR}/agentbox.fish
  DEPENDS agentbox
  COMMENT "Man pages and shell completions from agentbox's own help tables")
add_custom_target(agentbox_docs ALL DEPENDS ${AGENTBOX_MAN_DIR}/agentbox.1)

install(TARGETS agentbox RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# The agent is exec'd by agentbox, never typed: in libexec, where agentbox looks when it is not
# beside it (core/agent_binary.h).
install(TARGETS agentbox-agent RUNTIME DESTINATION ${CMAKE_INSTALL_LIBEXECDIR}/agentbox)
install(DIRECTORY ${AGENTBOX_MAN_DIR}/ DESTINATION ${CMAKE_INSTALL_MANDIR}/man1 FILES_MATCHING
        PATTERN "*.1")
install(FILES ${AGENTBOX_COMPLETION_DIR}/agentbox
        DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions)
install(FILES ${AGENTBOX_COMPLETION_DIR}/_agentbox
        DESTINATION ${CMAKE_INSTALL_DATADIR}/zsh/vendor-completions)
install(FILES ${AGENTBOX_COMPLETION_DIR}/agentbox.fish
        DESTINATION ${CMAKE_INSTALL_DATADIR}/fish/vendor_completions.d)

# The service names agentbox where it is installed: known only at install time (--prefix, or
# CPack's /usr), so the unit is written then.
install(CODE "
  set(AGENTBOX_BINDIR \"\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_BINDIR}\")
  configure_file(\"${PROJECT_SOURCE_DIR}/packaging/systemd/agentbox.service.in\"
                 \"${CMAKE_CURRENT_BINARY_DIR}/systemd/agentbox.service\" @ONLY)
")
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/systemd/agentbox.service
              ${PROJECT_SOURCE_DIR}/packaging/systemd/agentbox.socket
        DESTINATION lib/systemd/system)

install(FILES ${PROJECT_SOURCE_DIR}/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(FILES ${PROJECT_SOURCE_DIR}/LICENSE DESTINATION ${CMAKE_INSTALL_DOCDIR} RENAME copyright)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/docs
        FILES_MATCHING PATTERN "*.md")

# make deb: build/agentbox_<version>_amd64.deb. The agent is static; agentbox links only glibc
# (dpkg-shlibdeps names its package) and loads libcurl4 when it first talks to the Docker Engine
# API or a registry (src/httpclient/: dlopen, so shlibdeps cannot see it); btrfs-progs makes the
# workspace pool that holds the default disk limit (doctor reports it missing otherwise); passwd
# makes the agentbox group.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME agentbox)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "agentbox maintainers <agentbox@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "sandbox for AI agents' shell commands")
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION
    "Runs each command of an AI agent with no network, a read-only root, /workspace as the only
 writable host directory, its own namespaces, no privileges, a seccomp filter and hard limits
 on time, memory, processes, output and disk; a CLI, an HTTP API (agentbox serve, socket
 activated by agentbox.socket) and an MCP server.")
set(CPACK_PACKAGE_FILE_NAME agentbox_${PROJECT_VERSION}_amd64)
set(CPACK_DEBIAN_PACKAGE_ARCHITECTURE amd64)
set(CPACK_DEBIAN_PACKAGE_SECTION admin)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_LICENSE Apache-2.0)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "passwd, btrfs-progs, libcurl4")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "e2fsprogs, xfsprogs")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "docker.io, runsc")
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA
    ${PROJECT_SOURCE_DIR}/packaging/deb/postinst ${PROJECT_SOURCE_DIR}/packaging/deb/prerm
    ${PROJECT_SOURCE_DIR}/packaging/deb/postrm)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_OUTPUT_FILE_PREFIX ${CMAKE_CURRENT_BINARY_DIR})
include(CPack)
