#include "cmd/ksched/debug_explain.h"

#include <cpprest/uri.h>

#include <charconv>

#include "pkg/explain/render.h"

namespace ksched::cmd {
namespace {

metrics::PathAnswer Text(int code, std::string body) {
  return {code, std::move(body) + "\n", "text/plain; charset=utf-8"};
}

}  // namespace

metrics::PathHandler DebugExplainHandler(scheduler::Scheduler& scheduler) {
  return [&scheduler](const std::string& query) -> metrics::PathAnswer {
    std::map<std::string, std::string> params;
    try {
      for (const auto& [key, value] : web::uri::split_query(query)) {
        params[web::uri::decode(key)] = web::uri::decode(value);
      }
    } catch (const std::exception& e) {
      return Text(400, std::string("malformed query: ") + e.what());
    }
    const std::string& pod = params["pod"];
    const size_t slash = pod.find('/');
    if (slash == std::string::npos || slash == 0 || slash + 1 == pod.size()) {
      return Text(400, "give the pod as ?pod=NAMESPACE/NAME");
    }
    int top = 5;
    if (auto it = params.find("top"); it != params.end()) {
      const std::string& v = it->second;
      auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), top);
      if (ec != std::errc() || end != v.data() + v.size() || top < 0 ||
          top > 10000) {
        return Text(400, "top must be a number from 0 to 10000");
      }
    }
    const std::string output = params.count("output") ? params["output"] : "";
    if (!output.empty() && output != "json" && output != "text") {
      return Text(400, "output must be text or json");
    }
    auto explained =
        scheduler.Explain(pod.substr(0, slash), pod.substr(slash + 1), top);
    if (!explained.ok()) {
      const std::string& m = explained.error().message();
      return Text(m.find("not found") != std::string::npos ? 404 : 409, m);
    }
    if (output != "json") {
      return {200, explain::RenderText(explained->explanation),
              "text/plain; charset=utf-8"};
    }
    rapidjson::StringBuffer buffer;
    rapidjson::Writer<rapidjson::StringBuffer> w(buffer);
    explain::WriteJson(w, explained->explanation, *explained->record);
    return {200, std::string(buffer.GetString(), buffer.GetSize()) + "\n",
            "application/json"};
  };
}

}  // namespace ksched::cmd
