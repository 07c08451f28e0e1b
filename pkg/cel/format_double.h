#pragma once

#include <string>

namespace ksched::cel {

// A double as Go's fmt "%g" prints it, which is what cel-go's string(double)
// gives: the shortest digits that read back to the same double, in exponent
// form ("1e+06", "1.5e-05") when the decimal exponent is below -4 or at
// least 6, else plainly ("123456", "0.001"); "+Inf", "-Inf", "NaN".
std::string FormatDoubleGoG(double d);

}  // namespace ksched::cel
