// headway: the command line (cli/app.h) and nothing else.
#include "cli/app.h"

int main(int argc, char** argv) {
  int exit_code = 0;
  const auto app = headway::cli::make_app(&exit_code);
  return headway::cli::run_app(*app, argc, argv, exit_code);
}
