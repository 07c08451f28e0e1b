#include "pkg/cel/format_double.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace ksched::cel {

std::string FormatDoubleGoG(double d) {
  if (std::isnan(d)) return "NaN";
  if (std::isinf(d)) return d > 0 ? "+Inf" : "-Inf";
  if (d == 0) return std::signbit(d) ? "-0" : "0";
  // Shortest round-trip digits.
  char buf[40];
  int precision = 1;
  for (; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof(buf), "%.*e", precision - 1, d);
    if (std::strtod(buf, nullptr) == d) break;
  }
  // buf: [-]d.ddde[+-]xx
  std::string s = buf;
  bool neg = s[0] == '-';
  if (neg) s = s.substr(1);
  size_t e = s.find('e');
  int exp = std::atoi(s.c_str() + e + 1);
  std::string digits;
  for (size_t i = 0; i < e; ++i)
    if (s[i] != '.') digits += s[i];
  int nd = static_cast<int>(digits.size());
  // strconv's 'g' with shortest digits switches to exponent form at a
  // decimal exponent of 6, whatever the digit count ("1.234567e+06").
  const int eprec = 6;
  std::string out = neg ? "-" : "";
  if (exp < -4 || exp >= eprec) {
    out += digits[0];
    if (nd > 1) {
      out += '.';
      out += digits.substr(1);
    }
    char eb[16];
    std::snprintf(eb, sizeof(eb), "e%c%02d", exp < 0 ? '-' : '+',
                  exp < 0 ? -exp : exp);
    out += eb;
    return out;
  }
  // Plain form.
  int dp = exp + 1;  // digits before the decimal point
  if (dp <= 0) {
    out += "0.";
    out += std::string(-dp, '0');
    out += digits;
  } else if (dp >= nd) {
    out += digits;
    out += std::string(dp - nd, '0');
  } else {
    out += digits.substr(0, dp);
    out += '.';
    out += digits.substr(dp);
  }
  return out;
}

}  // namespace ksched::cel
