#pragma once
// A small blocking HTTP client for JSON POSTs (libcurl), used by the LLM providers. Thread-safe:
// every call uses its own connection; libcurl's global state is initialised once per process.
#include <chrono>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace headway::agents {

struct HttpResponse {
  long status = 0;  // the HTTP status of the final response
  // Response headers of the final response, by lower-cased name; a repeated header keeps the
  // last value.
  std::map<std::string, std::string> headers;
  std::string body;

  // The header's value (name matched case-insensitively), or nothing.
  std::optional<std::string> header(const std::string& name) const;
};

// No HTTP response arrived: the connection failed, broke, or the time limit ran out.
class HttpTransportError : public std::runtime_error {
 public:
  HttpTransportError(bool timed_out, const std::string& what)
      : std::runtime_error(what), timed_out_(timed_out) {}
  // True when the time limit ran out (CURLE_OPERATION_TIMEDOUT).
  bool timed_out() const { return timed_out_; }

 private:
  bool timed_out_;
};

// POSTs `body` as application/json to `url` with the extra `headers` ("Name: value" lines) and
// returns the response, whatever its status. `timeout` bounds the whole exchange, connection
// included. Throws HttpTransportError when no response arrived; its message names the URL and
// the failure but never the request's headers.
HttpResponse post_json(const std::string& url, const std::vector<std::string>& headers,
                       const std::string& body, std::chrono::duration<double> timeout);

}  // namespace headway::agents
