# What keeps a cold build short (docs/DEVELOPING.md, "Build time", has the figures that justify
# each choice; scripts/build-times.py measures them again).
#
# Debug information: line tables only by default (-g1: file, line and function for every address,
# which is what a backtrace or a profiler needs), because full -g at -O2 makes GCC track every
# variable's location through the optimizers, a large share of each object's compile time and most
# of the executable's size. -DHEADWAY_DEBUG_INFO=full restores -g for a debugging session.
set(HEADWAY_DEBUG_INFO lines CACHE STRING "Debug information of optimized builds: lines (-g1) or full (-g)")
set_property(CACHE HEADWAY_DEBUG_INFO PROPERTY STRINGS lines full)
if(NOT HEADWAY_DEBUG_INFO MATCHES "^(lines|full)$")
  message(FATAL_ERROR "HEADWAY_DEBUG_INFO must be lines or full, not '${HEADWAY_DEBUG_INFO}'")
endif()
if(HEADWAY_DEBUG_INFO STREQUAL "lines")
  # After the build type's -g on the command line, so this level is the one that holds.
  add_compile_options($<$<CONFIG:RelWithDebInfo>:-g1>)
endif()

# Unity groups: the files of a group compile as one translation unit. For files that each spend
# most of their time on the same header-only library's code (the CLI verbs: CLI11 defines every
# function inline, so each verb compiled CLI11's parser again), a group compiles that code once.
# A group costs incremental builds: editing one file recompiles its group.
option(HEADWAY_UNITY "Compile the files that share heavy header-only code in unity groups" ON)

# headway_unity_groups(TARGET SIZE SOURCE...): TARGET compiles SOURCE... in groups of at most SIZE
# files of one folder, in the order given. A group never spans folders, so a file added to a folder
# regroups only that folder, and only the files of one folder must keep their file-local names
# (anonymous namespaces, statics) apart; HEADWAY_UNITY_CHECK=ON puts each folder in one group, which
# shows every such clash at once.
option(HEADWAY_UNITY_CHECK "Compile each folder's files as one unity group (finds name clashes)" OFF)
function(headway_unity_groups target size)
  if(NOT HEADWAY_UNITY)
    return()
  endif()
  if(HEADWAY_UNITY_CHECK)
    set(size 100000)
  endif()
  set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_MODE GROUP)
  foreach(source ${ARGN})
    get_filename_component(folder ${source} DIRECTORY)
    file(RELATIVE_PATH folder ${PROJECT_SOURCE_DIR} ${folder})
    string(MAKE_C_IDENTIFIER "${folder}" folder)
    if(NOT DEFINED count_${folder})
      set(count_${folder} 0)
    endif()
    math(EXPR group "${count_${folder}} / ${size}")
    math(EXPR count_${folder} "${count_${folder}} + 1")
    set_source_files_properties(${source} TARGET_DIRECTORY ${target} PROPERTIES
      UNITY_GROUP "${target}_${folder}_${group}")
  endforeach()
endfunction()
