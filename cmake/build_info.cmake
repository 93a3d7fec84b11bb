# Writes the build-info source with the current git revision. Runs at every build (not only at
# configure time), so outputs name the code that made them; the file is rewritten only when the
# revision changes, so an unchanged tree rebuilds nothing.
execute_process(COMMAND git rev-parse --short HEAD WORKING_DIRECTORY ${SOURCE_DIR}
                OUTPUT_VARIABLE RIDGE_REVISION OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
execute_process(COMMAND git status --porcelain --untracked-files=no WORKING_DIRECTORY ${SOURCE_DIR}
                OUTPUT_VARIABLE RIDGE_DIRTY OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
if(NOT RIDGE_REVISION)
  set(RIDGE_REVISION unknown)
elseif(RIDGE_DIRTY)
  set(RIDGE_REVISION "${RIDGE_REVISION}-modified")
endif()
configure_file(${INPUT} ${OUTPUT} @ONLY)
