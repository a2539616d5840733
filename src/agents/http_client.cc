#include "agents/http_client.h"

#include <curl/curl.h>
#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <mutex>

#include "common/ascii.h"

namespace headway::agents {

namespace {

void init_curl_once() {
  static std::once_flag once;
  std::call_once(once, [] {
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
      throw HttpTransportError(false, "libcurl could not be initialised");
    }
  });
}

std::string trim(const std::string& s) {
  const auto first = s.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return "";
  const auto last = s.find_last_not_of(" \t\r\n");
  return s.substr(first, last - first + 1);
}

size_t on_body(char* data, size_t size, size_t count, void* user) {
  static_cast<std::string*>(user)->append(data, size * count);
  return size * count;
}

// Called once per header line; a status line starts a new response (after a 100 Continue or a
// redirect), whose headers replace the earlier ones.
size_t on_header(char* data, size_t size, size_t count, void* user) {
  auto& headers = *static_cast<std::map<std::string, std::string>*>(user);
  const std::string line(data, size * count);
  if (line.rfind("HTTP/", 0) == 0) {
    headers.clear();
  } else if (const auto colon = line.find(':'); colon != std::string::npos) {
    headers[ascii_lower(trim(line.substr(0, colon)))] = trim(line.substr(colon + 1));
  }
  return size * count;
}

struct EasyDeleter {
  void operator()(CURL* curl) const { curl_easy_cleanup(curl); }
};
struct SlistDeleter {
  void operator()(curl_slist* list) const { curl_slist_free_all(list); }
};

}  // namespace

std::optional<std::string> HttpResponse::header(const std::string& name) const {
  const auto it = headers.find(ascii_lower(name));
  if (it == headers.end()) return std::nullopt;
  return it->second;
}

HttpResponse post_json(const std::string& url, const std::vector<std::string>& headers,
                       const std::string& body, std::chrono::duration<double> timeout) {
  init_curl_once();
  std::unique_ptr<CURL, EasyDeleter> curl(curl_easy_init());
  if (!curl) throw HttpTransportError(false, "libcurl could not create a handle");

  std::unique_ptr<curl_slist, SlistDeleter> list;
  const auto append = [&](const std::string& line) {
    curl_slist* head = curl_slist_append(list.get(), line.c_str());
    if (!head) throw HttpTransportError(false, "libcurl could not build the request headers");
    (void)list.release();  // head is the same list, grown
    list.reset(head);
  };
  append("Content-Type: application/json");
  append("Accept: application/json");
  append("Expect:");  // no 100-continue round trip for large prompts
  for (const auto& h : headers) append(h);

  HttpResponse response;
  const auto timeout_ms = std::max<long>(
      1, static_cast<long>(std::chrono::duration<double, std::milli>(timeout).count()));
  CURL* c = curl.get();
  curl_easy_setopt(c, CURLOPT_URL, url.c_str());
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);  // signals are not thread-safe
  curl_easy_setopt(c, CURLOPT_POST, 1L);
  curl_easy_setopt(c, CURLOPT_POSTFIELDS, body.data());
  curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body.size()));
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, list.get());
  curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, timeout_ms);
  curl_easy_setopt(c, CURLOPT_ACCEPT_ENCODING, "");  // whatever libcurl can decode
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &response.body);
  curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
  curl_easy_setopt(c, CURLOPT_HEADERDATA, &response.headers);
  char error[CURL_ERROR_SIZE] = {};
  curl_easy_setopt(c, CURLOPT_ERRORBUFFER, error);

  const CURLcode code = curl_easy_perform(c);
  if (code != CURLE_OK) {
    const std::string detail = error[0] ? error : curl_easy_strerror(code);
    if (code == CURLE_OPERATION_TIMEDOUT) {
      throw HttpTransportError(
          true, fmt::format("POST {}: no answer within {:g} s ({})", url, timeout.count(), detail));
    }
    throw HttpTransportError(false, fmt::format("POST {}: {}", url, detail));
  }
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &response.status);
  return response;
}

}  // namespace headway::agents
