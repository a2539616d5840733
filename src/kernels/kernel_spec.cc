#include "kernels/kernel_spec.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <set>

#include "common/file_io.h"
#include "common/toml_fields.h"
#include "kernels/declared_kernel.h"
#include "kernels/draw_range.h"

namespace headway {

namespace fs = std::filesystem;
using toml_fields::fail;
using toml_fields::line_of;
using toml_fields::only_keys;
using toml_fields::string_at;

namespace {

constexpr std::pair<ArgumentRole, std::string_view> kRoles[] = {
    {ArgumentRole::kInput, "input"},   {ArgumentRole::kWeight, "weight"},
    {ArgumentRole::kOutput, "output"}, {ArgumentRole::kInOut, "inout"},
    {ArgumentRole::kCache, "cache"},
};

bool valid_identifier(std::string_view s) {
  bool ok = !s.empty() && !(s[0] >= '0' && s[0] <= '9');
  for (const char c : s) {
    ok &= (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  }
  return ok;
}

std::optional<int64_t> parse_count(std::string_view s) {
  int64_t v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || v <= 0) return std::nullopt;
  return v;
}

// "N", "K/16", "2*N", "N*2" or a positive integer node.
Extent parse_extent(const toml::node& node, const std::vector<std::string>& dims) {
  if (const auto* i = node.as_integer()) {
    if (i->get() <= 0) fail(line_of(node), "a shape's numbers must be positive");
    return {"", i->get(), 1};
  }
  const auto* s = node.as_string();
  if (!s)
    fail(line_of(node), "a shape holds dimension names (\"N\", \"K/16\", \"2*N\") or numbers");
  const std::string text = s->get();
  Extent e;
  std::string dim = text;
  if (const auto slash = text.find('/'); slash != std::string::npos) {
    dim = text.substr(0, slash);
    const auto d = parse_count(std::string_view(text).substr(slash + 1));
    if (!d) fail(line_of(node), fmt::format("'{}': the divisor must be a positive integer", text));
    e.divisor = *d;
  } else if (const auto star = text.find('*'); star != std::string::npos) {
    const std::string left = text.substr(0, star), right = text.substr(star + 1);
    const bool number_first = parse_count(left).has_value();
    const auto m = parse_count(number_first ? left : right);
    if (!m)
      fail(line_of(node), fmt::format("'{}': the multiplier must be a positive integer", text));
    e.multiplier = *m;
    dim = number_first ? right : left;
  }
  bool known = false;
  for (const auto& d : dims) known |= d == dim;
  if (!known) {
    fail(line_of(node),
         fmt::format("'{}' names no dimension (dims: {})", dim, fmt::join(dims, ", ")));
  }
  e.dim = dim;
  return e;
}

Draw parse_draw(const toml::node& node, ElementType type, const std::vector<std::string>& dims) {
  const auto* t = node.as_table();
  if (!t || t->size() != 1)
    fail(line_of(node),
         "'draw' is one of { normal = SIGMA }, { uniform = [LO, HI] }, { below = DIM or N }, "
         "{ constant = V }, { codes = true }");
  Draw d;
  std::string key;
  const toml::node* node_value = nullptr;
  for (auto&& [k, v] : *t) key = std::string(k.str()), node_value = &v;
  const toml::node& value = *node_value;
  const int line = line_of(value);
  d.line = line;
  auto number = [&](const toml::node& n) {
    if (!n.is_number()) fail(line, fmt::format("'{}' takes a number", key));
    return *n.value<double>();
  };
  if (key == "normal") {
    d.kind = Draw::Kind::kNormal;
    d.a = number(value);
    if (!(d.a > 0)) fail(line, "'normal' takes a positive sigma");
  } else if (key == "uniform") {
    const auto* a = value.as_array();
    if (!a || a->size() != 2) fail(line, "'uniform' takes [LO, HI]");
    d.kind = Draw::Kind::kUniform;
    d.a = number(*a->get(0));
    d.b = number(*a->get(1));
    if (!(d.a < d.b)) fail(line, "'uniform' needs LO < HI");
  } else if (key == "below") {
    d.kind = Draw::Kind::kBelow;
    if (const auto* n = value.as_integer()) {
      if (n->get() <= 0) fail(line, "'below' takes a positive count");
      d.below_count = n->get();
    } else if (const auto* s = value.as_string()) {
      bool known = false;
      for (const auto& dim : dims) known |= dim == s->get();
      if (!known) fail(line, fmt::format("'below': '{}' names no dimension", s->get()));
      d.below_dim = s->get();
    } else {
      fail(line, "'below' takes a dimension name or a positive count");
    }
    if (is_floating(type))
      fail(line, "'below' draws integers: the argument's type must be int8 or int32");
  } else if (key == "constant") {
    d.kind = Draw::Kind::kConstant;
    d.a = number(value);
  } else if (key == "codes") {
    if (value.value<bool>() != std::optional<bool>(true)) fail(line, "'codes' takes true");
    if (type != ElementType::kNvfp4)
      fail(line, "'codes' draws every bit pattern: the argument's type must be nvfp4");
    d.kind = Draw::Kind::kCodes;
  } else {
    fail(line_of(node),
         fmt::format("unknown draw '{}' (known: normal, uniform, below, constant, codes)", key));
  }
  if (!is_floating(type) && d.kind == Draw::Kind::kNormal)
    fail(line, "an integer argument is drawn with 'uniform', 'below' or 'constant'");
  return d;
}

SpecArgument parse_argument(const toml::table& t, const std::vector<std::string>& dims) {
  SpecArgument a;
  a.line = line_of(t);
  only_keys(t, "[[arguments]]", {"name", "role", "type", "shape", "draw", "stream", "pass"});
  a.name = string_at(t, "name", a.line, true);
  if (!valid_identifier(a.name))
    fail(line_of(*t.get("name")), fmt::format("'{}' is not a C identifier", a.name));
  const std::string role = string_at(t, "role", a.line, true);
  bool found = false;
  for (const auto& [r, name] : kRoles) {
    if (name == role) a.role = r, found = true;
  }
  if (!found)
    fail(line_of(*t.get("role")),
         fmt::format("unknown role '{}' (known: input, weight, output, inout, cache)", role));
  const std::string type = string_at(t, "type", a.line, true);
  const auto parsed = parse_element_type(type);
  if (!parsed)
    fail(line_of(*t.get("type")),
         fmt::format("unknown type '{}' (known: {})", type, element_type_names()));
  a.type = *parsed;
  const bool written = a.role != ArgumentRole::kInput && a.role != ArgumentRole::kWeight;
  if (written && a.type == ElementType::kNvfp4)
    fail(line_of(*t.get("type")), "nvfp4 is an input format: a kernel cannot be judged on it");
  if (const toml::node* s = t.get("shape")) {
    const auto* arr = s->as_array();
    if (!arr) fail(line_of(*s), "'shape' is an array of extents, [] for a scalar");
    for (const auto& e : *arr) a.shape.push_back(parse_extent(e, dims));
  } else {
    fail(a.line, "missing key 'shape' ([] for a scalar)");
  }
  if (a.role == ArgumentRole::kCache && a.shape.size() < 2)
    fail(a.line, "a cache has rows: its shape needs at least two extents (rows first)");
  if (const toml::node* d = t.get("draw")) {
    if (a.role == ArgumentRole::kOutput)
      fail(line_of(*d), "an output is written by the kernel: it takes no 'draw'");
    a.draw = parse_draw(*d, a.type, dims);
  } else if (a.role != ArgumentRole::kOutput && !is_floating(a.type)) {
    fail(a.line,
         fmt::format("integer argument '{}' needs a 'draw' (uniform, below or constant)", a.name));
  }
  if (const toml::node* n = t.get("stream")) {
    const auto* i = n->as_integer();
    if (!i || i->get() <= 0) fail(line_of(*n), "'stream' takes a positive integer");
    a.stream = static_cast<uint64_t>(i->get());
  }
  if (const toml::node* n = t.get("pass")) {
    const std::string pass = string_at(t, "pass", a.line, true);
    if (pass != "values" && pass != "bytes")
      fail(line_of(*n), fmt::format("unknown pass '{}' (known: values, bytes)", pass));
    if (pass == "bytes" && written)
      fail(line_of(*n),
           "only inputs and weights pass as bytes: what a kernel writes is judged "
           "in values");
    a.pass_bytes = pass == "bytes";
  }
  return a;
}

ShapeSet parse_shape_set(const toml::table& t, const std::vector<std::string>& dims) {
  ShapeSet s;
  s.line = line_of(t);
  s.name = string_at(t, "name", s.line, true);
  if (!valid_identifier(s.name))
    fail(line_of(*t.get("name")), fmt::format("shape set '{}' is not an identifier", s.name));
  if (const toml::node* n = t.get("check_only")) {
    const auto* b = n->as_boolean();
    if (!b) fail(line_of(*n), "'check_only' takes true or false");
    s.check_only = b->get();
  }
  for (auto&& [key, node] : t) {
    if (key == "name" || key == "check_only") continue;
    bool known = false;
    for (const auto& d : dims) known |= d == key.str();
    if (!known)
      fail(line_of(node),
           fmt::format("'{}' names no dimension (dims: {})", key.str(), fmt::join(dims, ", ")));
  }
  for (const auto& d : dims) {
    const toml::node* n = t.get(d);
    if (!n) fail(s.line, fmt::format("shape set '{}' gives no value for dimension {}", s.name, d));
    const auto* i = n->as_integer();
    if (!i || i->get() <= 0)
      fail(line_of(*n), fmt::format("dimension {} must be a positive integer", d));
    s.dims.push_back(i->get());
  }
  return s;
}

KernelSpec parse_spec(const fs::path& file, const toml::table& root, SpecOrigin origin) {
  KernelSpec k;
  k.origin = origin;
  k.file = file;
  const fs::path base = file.parent_path();
  const bool on_disk = origin == SpecOrigin::kDisk;
  auto path_at = [&](const toml::table& t, std::string_view key, int line, bool required) {
    if (on_disk) return toml_fields::existing_path(base, t, key, line, required, true);
    const std::string name = string_at(t, key, line, required);
    return name.empty() ? fs::path() : (base / name).lexically_normal();
  };
  only_keys(root, "a kernel spec",
            {"name", "summary", "dims", "shapes", "arguments", "reference", "generator",
             "tolerance", "bytes", "baselines", "designs"});
  k.name = string_at(root, "name", 1, true);
  if (auto valid = valid_kernel_name(k.name); !valid)
    fail(line_of(*root.get("name")), valid.error().message);
  k.summary = string_at(root, "summary", 1, false);
  k.dims = toml_fields::strings_at(root, "dims");
  std::set<std::string> seen;
  for (const auto& d : k.dims) {
    if (!valid_identifier(d) || !seen.insert(d).second)
      fail(line_of(*root.get("dims")),
           fmt::format("dimension '{}' is not an identifier, or is named twice", d));
  }
  const toml::node* shapes = root.get("shapes");
  const auto* shape_array = shapes ? shapes->as_array() : nullptr;
  if (!shape_array || shape_array->empty())
    fail(shapes ? line_of(*shapes) : 1,
         "a spec needs at least one shape set ([[shapes]] name = \"...\" and every dimension)");
  seen.clear();
  for (const auto& s : *shape_array) {
    const auto* t = s.as_table();
    if (!t) fail(line_of(s), "each [[shapes]] entry is a table");
    k.shapes.push_back(parse_shape_set(*t, k.dims));
    if (!seen.insert(k.shapes.back().name).second)
      fail(k.shapes.back().line,
           fmt::format("shape set '{}' is named twice", k.shapes.back().name));
  }
  if (k.first_timed_shape() == k.shapes.size())
    fail(line_of(*shapes),
         "every shape set is check_only: a kernel needs one to time (drop check_only from one)");
  const toml::node* args = root.get("arguments");
  const auto* arg_array = args ? args->as_array() : nullptr;
  if (!arg_array || arg_array->empty())
    fail(args ? line_of(*args) : 1, "a spec needs [[arguments]]");
  seen.clear();
  bool writes = false;
  for (const auto& a : *arg_array) {
    const auto* t = a.as_table();
    if (!t) fail(line_of(a), "each [[arguments]] entry is a table");
    k.arguments.push_back(parse_argument(*t, k.dims));
    const SpecArgument& arg = k.arguments.back();
    if (!seen.insert(arg.name).second)
      fail(arg.line, fmt::format("argument '{}' is named twice", arg.name));
    writes |= arg.role != ArgumentRole::kInput && arg.role != ArgumentRole::kWeight;
  }
  if (!writes) fail(line_of(*args), "no argument is written (an output, inout or cache)");
  k.reference = path_at(root, "reference", 1, true);
  k.generator = path_at(root, "generator", 1, false);
  const toml::table* tol = toml_fields::table_at(root, "tolerance");
  if (!tol) fail(1, "missing 'tolerance = { atol = A, rtol = R }'");
  only_keys(*tol, "'tolerance'", {"atol", "rtol"});
  k.tolerance.atol = toml_fields::number_at(*tol, "atol").value_or(0.0);
  k.tolerance.rtol = toml_fields::number_at(*tol, "rtol").value_or(0.0);
  if (k.tolerance.atol < 0 || k.tolerance.rtol < 0 || !std::isfinite(k.tolerance.atol) ||
      !std::isfinite(k.tolerance.rtol))
    fail(line_of(*tol), "tolerances are finite and not negative");
  if (const auto b = toml_fields::integer_at(root, "bytes")) {
    if (*b <= 0) fail(line_of(*root.get("bytes")), "'bytes' must be positive");
    k.bytes = static_cast<uint64_t>(*b);
  }
  if (const toml::table* baselines = toml_fields::table_at(root, "baselines")) {
    for (auto&& [target, node] : *baselines) {
      k.baselines[std::string(target.str())] =
          path_at(*baselines, target.str(), line_of(node), true);
    }
  }
  if (const toml::table* designs = toml_fields::table_at(root, "designs")) {
    for (auto&& [target, node] : *designs) {
      auto& files = k.designs[std::string(target.str())];
      for (const auto& name : toml_fields::strings_at(*designs, target.str())) {
        const fs::path p = on_disk ? fs::absolute(base / name).lexically_normal()
                                   : (base / name).lexically_normal();
        if (on_disk && !fs::exists(p))
          fail(line_of(node), fmt::format("design {} does not exist", p.string()));
        files.push_back(p);
      }
    }
  }
  for (size_t a = 0; a < k.arguments.size(); ++a) {
    for (size_t s = 0; s < k.shapes.size(); ++s) {
      if (auto e = k.extents(a, s); !e) fail(k.arguments[a].line, e.error().message);
    }
    if (auto in_range = check_draw_range(k, a); !in_range)
      fail(k.arguments[a].draw.line, in_range.error().message);
  }
  return k;
}

}  // namespace

std::string_view argument_role_name(ArgumentRole role) {
  for (const auto& [r, name] : kRoles) {
    if (r == role) return name;
  }
  return "?";
}

std::vector<fs::path> spec_files(const KernelSpec& spec) {
  std::vector<fs::path> files = {spec.file, spec.reference};
  if (!spec.generator.empty()) files.push_back(spec.generator);
  for (const fs::path& source : std::vector<fs::path>(files.begin() + 1, files.end())) {
    std::error_code ec;
    for (auto it = fs::directory_iterator(source.parent_path(), ec);
         !ec && it != fs::directory_iterator(); it.increment(ec)) {
      const std::string ext = it->path().extension().string();
      if (ext == ".h" || ext == ".hh" || ext == ".hpp") files.push_back(it->path());
    }
  }
  for (const auto& [target, path] : spec.baselines) files.push_back(path);
  for (const auto& [target, paths] : spec.designs)
    files.insert(files.end(), paths.begin(), paths.end());
  std::vector<fs::path> unique;
  for (const fs::path& f : files) {
    if (std::find(unique.begin(), unique.end(), f) == unique.end()) unique.push_back(f);
  }
  return unique;
}

std::string shape_text(const SpecArgument& argument) {
  std::string out;
  for (const Extent& e : argument.shape) {
    std::string extent = e.dim.empty() ? std::to_string(e.multiplier) : e.dim;
    if (!e.dim.empty() && e.multiplier != 1) extent = fmt::format("{}*{}", e.multiplier, e.dim);
    if (e.divisor != 1) extent += fmt::format("/{}", e.divisor);
    out += (out.empty() ? "" : ", ") + extent;
  }
  return out;
}

Result<std::vector<int64_t>> KernelSpec::extents(size_t a, size_t s) const {
  const SpecArgument& arg = arguments[a];
  std::vector<int64_t> out;
  for (const Extent& e : arg.shape) {
    int64_t v = e.multiplier;
    if (!e.dim.empty()) {
      size_t d = 0;
      while (dims[d] != e.dim) ++d;
      v = shapes[s].dims[d] * e.multiplier;
    }
    if (v % e.divisor != 0) {
      return invalid_input(fmt::format("argument '{}': {}/{} does not divide out at shape set '{}'",
                                       arg.name, v, e.divisor, shapes[s].name));
    }
    out.push_back(v / e.divisor);
  }
  int64_t count = 1;
  for (const int64_t v : out) count *= v;
  if (arg.type == ElementType::kNvfp4 && count % 2 != 0) {
    return invalid_input(fmt::format(
        "argument '{}': nvfp4 packs two codes a byte, but it has {} elements at shape set '{}'",
        arg.name, count, shapes[s].name));
  }
  return out;
}

size_t KernelSpec::first_timed_shape() const {
  size_t s = 0;
  while (s < shapes.size() && shapes[s].check_only) ++s;
  return s;
}

Result<KernelSpec> load_kernel_spec(const fs::path& file) {
  const fs::path path = fs::absolute(file).lexically_normal();
  const std::optional<std::string> text = read_file(path);
  if (!text) return invalid_input(fmt::format("{}: cannot read the kernel spec", path.string()));
  return parse_kernel_spec(*text, path, SpecOrigin::kDisk);
}

Result<KernelSpec> parse_kernel_spec(std::string_view text, const fs::path& path,
                                     SpecOrigin origin) {
  try {
    const toml::table root = toml_fields::parse(text, path);
    return parse_spec(path, root, origin);
  } catch (const toml::parse_error& e) {
    return invalid_input(fmt::format("{}:{}: {}", path.string(), e.source().begin.line,
                                     toml_fields::one_line(e.description())));
  } catch (const toml_fields::FieldError& e) {
    return invalid_input(
        fmt::format("{}:{}: {}", (e.file.empty() ? path : e.file).string(), e.line, e.message));
  }
}

}  // namespace headway
