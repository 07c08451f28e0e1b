// The HTML report's stylesheet, script and body, embedded at build time
// from pkg/simulator/html/ (cmake/embed_report_assets.cmake).
#pragma once

#include <string_view>

namespace ksched::simulator {

extern const std::string_view kReportCss;
extern const std::string_view kReportJs;
extern const std::string_view kReportBody;

}  // namespace ksched::simulator
