#pragma once
// A man page (roff, man(7) macros) for a CLI11 command line, generated from its definition: the
// synopsis, the global options, and one section per verb (and nested subcommand) with its
// arguments and options, followed by the exit statuses and where the full documentation is.
#include <CLI/CLI.hpp>
#include <string>

namespace headway::cli {

// The page for `app` (section 1), titled with its name; `version` goes in the footer.
std::string man_page(const CLI::App& app, const std::string& version);

// text with the characters roff treats specially escaped: backslashes, hyphens (as \-), and a
// leading dot or quote on any line.
std::string roff_escape(const std::string& text);

}  // namespace headway::cli
