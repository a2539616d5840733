# Generates ${CMAKE_CURRENT_BINARY_DIR}/generated/headway_build_info.h: the project version, the
# git commit the sources are at (configure time; empty when the sources are not a git checkout or
# git is missing) and the compiler. The build re-configures when HEAD or its branch moves, so the
# commit follows new commits; uncommitted changes are not recorded.
set(HEADWAY_GIT_COMMIT "")
find_package(Git QUIET)
if(GIT_FOUND)
  # Only a checkout of these sources counts, not a repository that merely contains them.
  execute_process(COMMAND ${GIT_EXECUTABLE} rev-parse --show-toplevel
    WORKING_DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR}
    OUTPUT_VARIABLE git_top ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE)
  execute_process(COMMAND ${GIT_EXECUTABLE} rev-parse --verify HEAD
    WORKING_DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR}
    RESULT_VARIABLE git_rc OUTPUT_VARIABLE git_commit ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE)
  get_filename_component(source_real ${CMAKE_CURRENT_SOURCE_DIR} REALPATH)
  if(git_top)
    get_filename_component(git_top ${git_top} REALPATH)
  endif()
  if(git_rc EQUAL 0 AND git_top STREQUAL source_real)
    set(HEADWAY_GIT_COMMIT ${git_commit})
    # HEAD, the branch it names and packed-refs: the files a new commit or checkout changes.
    execute_process(COMMAND ${GIT_EXECUTABLE} rev-parse --symbolic-full-name HEAD
      WORKING_DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR}
      OUTPUT_VARIABLE git_ref ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE)
    set(git_watch HEAD packed-refs)
    if(git_ref MATCHES "^refs/")
      list(APPEND git_watch ${git_ref})
    endif()
    foreach(name ${git_watch})
      execute_process(COMMAND ${GIT_EXECUTABLE} rev-parse --path-format=absolute --git-path ${name}
        WORKING_DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR}
        OUTPUT_VARIABLE git_file ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE)
      if(git_file AND EXISTS ${git_file})
        set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${git_file})
      endif()
    endforeach()
  endif()
endif()
set(HEADWAY_COMPILER "${CMAKE_CXX_COMPILER_ID} ${CMAKE_CXX_COMPILER_VERSION}")
configure_file(${CMAKE_CURRENT_LIST_DIR}/headway_build_info.h.in
  ${CMAKE_CURRENT_BINARY_DIR}/generated/headway_build_info.h @ONLY)
