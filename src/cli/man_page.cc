#include "cli/man_page.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

namespace headway::cli {

namespace {

std::string upper(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return s;
}

// "--kernel, -k VALUE" in bold names, with the value in italics.
std::string option_heading(const CLI::Option& opt) {
  std::string names;
  for (const auto& n : opt.get_lnames())
    names += (names.empty() ? "" : ", ") + fmt::format("\\fB{}\\fR", roff_escape("--" + n));
  for (const auto& n : opt.get_snames())
    names += (names.empty() ? "" : ", ") + fmt::format("\\fB{}\\fR", roff_escape("-" + n));
  if (opt.get_expected_max() > 0) names += " \\fIVALUE\\fR";
  return names;
}

void describe_options(const CLI::App& app, std::string& out) {
  for (const CLI::Option* opt : app.get_options()) {
    if (opt->nonpositional()) continue;
    out +=
        fmt::format(".TP\n\\fI{}\\fR{}\n{}\n", roff_escape(opt->get_name()),
                    opt->get_required() ? "" : " (optional)", roff_escape(opt->get_description()));
  }
  for (const CLI::Option* opt : app.get_options()) {
    if (!opt->nonpositional()) continue;
    out += fmt::format(".TP\n{}\n{}\n", option_heading(*opt), roff_escape(opt->get_description()));
  }
}

void describe_verbs(const CLI::App& app, const std::string& path, std::string& out) {
  for (const CLI::App* sub :
       app.get_subcommands([](const CLI::App* s) { return !s->get_name().empty(); })) {
    const std::string name = path + " " + sub->get_name();
    std::string positionals;
    for (const CLI::Option* opt : sub->get_options()) {
      if (opt->nonpositional()) continue;
      positionals += opt->get_required() ? " " + opt->get_name() : " [" + opt->get_name() + "]";
    }
    out += fmt::format(".SS \"{}{}\"\n{}\n", roff_escape(name), roff_escape(positionals),
                       roff_escape(sub->get_description()));
    describe_options(*sub, out);
    describe_verbs(*sub, name, out);
  }
}

}  // namespace

std::string roff_escape(const std::string& text) {
  std::string out;
  bool line_start = true;
  for (char c : text) {
    if (line_start && (c == '.' || c == '\'')) out += "\\&";
    if (c == '\\') {
      out += "\\e";
    } else if (c == '-') {
      out += "\\-";
    } else {
      out += c;
    }
    line_start = c == '\n';
  }
  return out;
}

std::string man_page(const CLI::App& app, const std::string& version) {
  const std::string name = app.get_name();
  std::string description = app.get_description();
  if (const auto colon = description.find(": "); colon != std::string::npos) {
    description = description.substr(colon + 2);  // "headway: does X" -> "does X"
  }
  std::string out = fmt::format(
      ".\\\" Generated from the command line definition by `{0} man`. Do not edit.\n"
      ".TH {1} 1 \"\" \"{0} {2}\" \"User Commands\"\n"
      ".nh\n.ad l\n"
      ".SH NAME\n{0} \\- {3}\n"
      ".SH SYNOPSIS\n.B {0}\n[\\fIGLOBAL OPTIONS\\fR] \\fIVERB\\fR [\\fIARGUMENTS\\fR] "
      "[\\fIOPTIONS\\fR]\n"
      ".SH DESCRIPTION\n\\fB{0}\\fR {3}.\n.PP\nEvery verb accepts \\fB\\-\\-help\\fR. With "
      "\\fB\\-\\-json\\fR a verb "
      "prints one JSON object on standard output and its progress and warnings on standard "
      "error.\n"
      ".SH GLOBAL OPTIONS\n",
      name, upper(name), roff_escape(version), roff_escape(description));
  describe_options(app, out);
  out += ".SH VERBS\n";
  describe_verbs(app, name, out);
  out +=
      ".SH EXIT STATUS\n"
      ".TP\n.B 0\nsuccess\n"
      ".TP\n.B 1\na negative result: a wrong or misbehaving kernel, a candidate that cheated, "
      "problem citations, a broken head\n"
      ".TP\n.B 2\nusage or bad input: an unknown verb or option, a missing argument, no workspace\n"
      ".TP\n.B 3\nan environment problem: no usable compiler, no sandbox\n"
      ".PP\nErrors are one line on standard error, starting with \\(lq" +
      name +
      ": \\(rq.\n"
      ".SH SEE ALSO\n"
      "docs/CLI.md (every verb's \\fB\\-\\-json\\fR object), README.md and the other files in "
      "docs/ of the " +
      name + " sources.\n";
  return out;
}

}  // namespace headway::cli
