#include "pkg/api/quantity.h"

#include <gtest/gtest.h>

#include <compare>
#include <cstdint>
#include <limits>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace ksched::api {
namespace {

using Format = Quantity::Format;
constexpr Format kDSI = Format::kDecimalSI;
constexpr Format kBSI = Format::kBinarySI;
constexpr Format kExp = Format::kDecimalExponent;

using Int128 = __int128;

constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();
constexpr int64_t kInt64Min = std::numeric_limits<int64_t>::min();

// mantissa * 10^exponent units, in nano-units; the same shape as the
// decQuantity(mantissa, exponent, format) helper of Kubernetes' tests, so
// expectations read like theirs. exponent must be >= -9.
constexpr Int128 Dec(Int128 mantissa, int exponent) {
  for (int i = -9; i < exponent; ++i) mantissa *= 10;
  return mantissa;
}

constexpr Int128 kMaxNano =
    static_cast<Int128>(~static_cast<unsigned __int128>(0) >> 1);
// Kubernetes' maxAllowed: the cap for parsed BinarySI values.
constexpr Int128 kBinaryCap = Dec(kInt64Max, 0);
constexpr Int128 kTwoPow70Units = Dec(Int128{1} << 70, 0);

std::string Str(Int128 v) {
  if (v == 0) return "0";
  const bool negative = v < 0;
  unsigned __int128 m = negative ? 0 - static_cast<unsigned __int128>(v)
                                 : static_cast<unsigned __int128>(v);
  std::string out;
  for (; m != 0; m /= 10)
    out.insert(out.begin(), static_cast<char>('0' + m % 10));
  return negative ? "-" + out : out;
}

const char* FormatName(Format f) {
  switch (f) {
    case kDSI:
      return "DecimalSI";
    case kBSI:
      return "BinarySI";
    case kExp:
      return "DecimalExponent";
  }
  return "?";
}

// Test names may only hold [A-Za-z0-9_]; keep the index for uniqueness.
std::string CaseName(size_t index, std::string_view input) {
  std::string name = "c" + std::to_string(index) + "_";
  for (char c : input) {
    if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
        (c >= 'A' && c <= 'Z')) {
      name += c;
    } else if (c == '.') {
      name += "dot";
    } else if (c == '-') {
      name += "neg";
    } else if (c == '+') {
      name += "pos";
    } else {
      name += '_';
    }
  }
  return name.size() > 60 ? name.substr(0, 60) : name;
}

// ---------------------------------------------------------------------------
// Parse: accepted inputs.
// ---------------------------------------------------------------------------

struct ParseCase {
  std::string_view input;
  Int128 nano;  // exact expected value
  Format format;
  std::string_view canonical;  // expected ToString()
};

void PrintTo(const ParseCase& c, std::ostream* os) {
  *os << '"' << c.input << "\" -> " << Str(c.nano) << "n "
      << FormatName(c.format) << " \"" << c.canonical << '"';
}

// The cases come from Kubernetes' quantity tests
// (staging/src/k8s.io/apimachinery/pkg/api/resource/quantity_test.go:
// TestQuantityParse, TestQuantityParseZero, TestQuantityParseEmit,
// TestNegativeValueRoundsAwayFromZero, TestQuantityString), with the
// canonical strings CanonicalizeBytes produces for them. Cases after the
// Kubernetes block pin behaviour read from quantity.go itself: inputs whose
// number part has no digits, values beyond int64, and 128-bit saturation.
const ParseCase kParseCases[] = {
    // TestQuantityParseZero and the zero rows of TestQuantityParse.
    {"0", 0, kDSI, "0"},
    {"0n", 0, kDSI, "0"},
    {"0u", 0, kDSI, "0"},
    {"0m", 0, kDSI, "0"},
    {"0Ki", 0, kBSI, "0"},
    {"0k", 0, kDSI, "0"},
    {"0Mi", 0, kBSI, "0"},
    {"0M", 0, kDSI, "0"},
    {"0Gi", 0, kBSI, "0"},
    {"0G", 0, kDSI, "0"},
    {"0Ti", 0, kBSI, "0"},
    {"0T", 0, kDSI, "0"},
    // Quantity-less numbers.
    {"1", Dec(1, 0), kDSI, "1"},
    // Binary suffixes.
    {"1Ki", Dec(1024, 0), kBSI, "1Ki"},
    {"8Ki", Dec(8 * 1024, 0), kBSI, "8Ki"},
    {"7Mi", Dec(Int128{7} << 20, 0), kBSI, "7Mi"},
    {"6Gi", Dec(Int128{6} << 30, 0), kBSI, "6Gi"},
    {"5Ti", Dec(Int128{5} << 40, 0), kBSI, "5Ti"},
    {"4Pi", Dec(Int128{4} << 50, 0), kBSI, "4Pi"},
    {"3Ei", Dec(Int128{3} << 60, 0), kBSI, "3Ei"},
    {"10Ti", Dec(Int128{10} << 40, 0), kBSI, "10Ti"},
    {"100Ti", Dec(Int128{100} << 40, 0), kBSI, "100Ti"},
    // Decimal suffixes.
    {"5n", Dec(5, -9), kDSI, "5n"},
    {"4u", Dec(4, -6), kDSI, "4u"},
    {"3m", Dec(3, -3), kDSI, "3m"},
    {"9", Dec(9, 0), kDSI, "9"},
    {"8k", Dec(8, 3), kDSI, "8k"},
    {"50k", Dec(5, 4), kDSI, "50k"},
    {"7M", Dec(7, 6), kDSI, "7M"},
    {"6G", Dec(6, 9), kDSI, "6G"},
    {"5T", Dec(5, 12), kDSI, "5T"},
    {"40T", Dec(4, 13), kDSI, "40T"},
    {"300T", Dec(3, 14), kDSI, "300T"},
    {"2P", Dec(2, 15), kDSI, "2P"},
    {"1E", Dec(1, 18), kDSI, "1E"},
    // Decimal exponents.
    {"1E-3", Dec(1, -3), kExp, "1e-3"},
    {"1e3", Dec(1, 3), kExp, "1e3"},
    {"1E6", Dec(1, 6), kExp, "1e6"},
    {"1e9", Dec(1, 9), kExp, "1e9"},
    {"1E12", Dec(1, 12), kExp, "1e12"},
    {"1e15", Dec(1, 15), kExp, "1e15"},
    {"1E18", Dec(1, 18), kExp, "1e18"},
    // Nonstandard but still parsable.
    {"1e14", Dec(1, 14), kExp, "100e12"},
    {"1e13", Dec(1, 13), kExp, "10e12"},
    {"100.035k", Dec(100035, 0), kDSI, "100035"},
    // Things that look like floating point.
    {"0.001", Dec(1, -3), kDSI, "1m"},
    {"0.0005k", Dec(5, -1), kDSI, "500m"},
    {"0.005", Dec(5, -3), kDSI, "5m"},
    {"0.05", Dec(5, -2), kDSI, "50m"},
    {"0.5", Dec(5, -1), kDSI, "500m"},
    {"0.00050k", Dec(5, -1), kDSI, "500m"},
    {"0.00500", Dec(5, -3), kDSI, "5m"},
    {"0.05000", Dec(5, -2), kDSI, "50m"},
    {"0.50000", Dec(5, -1), kDSI, "500m"},
    {"0.5e0", Dec(5, -1), kExp, "500e-3"},
    {"0.5e-1", Dec(5, -2), kExp, "50e-3"},
    {"0.5e-2", Dec(5, -3), kExp, "5e-3"},
    {"10.035M", Dec(10035, 3), kDSI, "10035k"},
    {"1.2e3", Dec(12, 2), kExp, "1200"},
    {"1.3E+6", Dec(13, 5), kExp, "1300e3"},
    {"1.40e9", Dec(14, 8), kExp, "1400e6"},
    {"1.53E12", Dec(153, 10), kExp, "1530e9"},
    {"1.6e15", Dec(16, 14), kExp, "1600e12"},
    {"1.7E18", Dec(17, 17), kExp, "1700e15"},
    {"9.01", Dec(901, -2), kDSI, "9010m"},
    {"8.1k", Dec(81, 2), kDSI, "8100"},
    {"7.123456M", Dec(7123456, 0), kDSI, "7123456"},
    {"6.987654321G", Dec(6987654321, 0), kDSI, "6987654321"},
    {"5.444T", Dec(5444, 9), kDSI, "5444G"},
    {"40.1T", Dec(401, 11), kDSI, "40100G"},
    {"300.2T", Dec(3002, 11), kDSI, "300200G"},
    {"2.5P", Dec(25, 14), kDSI, "2500T"},
    {"1.01E", Dec(101, 16), kDSI, "1010P"},
    // Things that saturate or round (magnitude up, to one nano-unit).
    {"3.001n", Dec(4, -9), kDSI, "4n"},
    {"1.1E-9", Dec(2, -9), kExp, "2e-9"},
    {"0.0000000001", Dec(1, -9), kDSI, "1n"},
    {"0.0000000005", Dec(1, -9), kDSI, "1n"},
    {"0.00000000050", Dec(1, -9), kDSI, "1n"},
    {"0.5e-9", Dec(1, -9), kExp, "1e-9"},
    {"0.9n", Dec(1, -9), kDSI, "1n"},
    {"0.00000012345", Dec(124, -9), kDSI, "124n"},
    {"0.00000012354", Dec(124, -9), kDSI, "124n"},
    {"9Ei", kBinaryCap, kBSI, "9223372036854775807"},
    {"9223372036854775807Ki", kBinaryCap, kBSI, "9223372036854775807"},
    {"12E", Dec(12, 18), kDSI, "12E"},
    // Fractional binary quantities.
    {"100.035Ki", Dec(10243584, -2), kBSI, "102435840m"},
    {"0.5Mi", Dec(512 * 1024, 0), kBSI, "512Ki"},
    {"0.05Gi", Dec(536870912, -1), kBSI, "53687091200m"},
    {"0.025Ti", Dec(274877906944, -1), kBSI, "27487790694400m"},
    // Things written by trolls.
    {"0.000000000001Ki", Dec(2, -9), kDSI, "2n"},  // rounds up, DecimalSI
    {".001", Dec(1, -3), kDSI, "1m"},
    {".0001k", Dec(100, -3), kDSI, "100m"},
    {"1.", Dec(1, 0), kDSI, "1"},
    {"1.G", Dec(1, 9), kDSI, "1G"},
    // TestQuantityParseEmit.
    {"1Mi", Dec(1 << 20, 0), kBSI, "1Mi"},
    {"1Gi", Dec(1 << 30, 0), kBSI, "1Gi"},
    {"1024Mi", Dec(1 << 30, 0), kBSI, "1Gi"},
    {"1000M", Dec(1, 9), kDSI, "1G"},
    {".001Ki", Dec(1024, -3), kBSI, "1024m"},
    {".000001Ki", Dec(1024, -6), kDSI, "1024u"},
    {".000000001Ki", Dec(1024, -9), kDSI, "1024n"},
    // TestNegativeValueRoundsAwayFromZero (already signed).
    {"-.484785E-7466", Dec(-1, -9), kExp, "-1e-9"},
    {".484785E-7466", Dec(1, -9), kExp, "1e-9"},
    {"-.484785E-1", Dec(-484785, -7), kExp, "-48478500e-9"},
    {"-9.5000000001Gi", -Int128{10200547328107374183ULL}, kBSI,
     "-10200547328107374183n"},
    {"-1500m", Dec(-1500, -3), kDSI, "-1500m"},
    // Examples from the Quantity documentation.
    {"1.5", Dec(15, -1), kDSI, "1500m"},
    {"1.5Gi", Dec(1536 << 20, 0), kBSI, "1536Mi"},
    {"1000", Dec(1, 3), kDSI, "1k"},
    {"12e6", Dec(12, 6), kExp, "12e6"},
    {"+12", Dec(12, 0), kDSI, "12"},

    // --- Beyond Kubernetes' own tables, derived from quantity.go. ---
    {"-000", 0, kDSI, "0"},
    {"0Pi", 0, kBSI, "0"},
    // Exponent spellings strconv.ParseInt accepts.
    {"1e+3", Dec(1, 3), kExp, "1e3"},
    {"1e0", Dec(1, 0), kExp, "1"},
    {"1E-0", Dec(1, 0), kExp, "1"},
    {"1e007", Dec(1, 7), kExp, "10e6"},
    // Binary fractions: shown in DecimalSI unless a whole number >= 1Ki.
    {"1.5Ki", Dec(1536, 0), kBSI, "1536"},
    {"0.5Ki", Dec(512, 0), kBSI, "512"},
    // ... and the plain number then reads as DecimalSI, so printing it again
    // can change it once more (the quantity fuzzer found this pair).
    {"62.5Ki", Dec(64000, 0), kBSI, "64000"},
    {"64000", Dec(64, 3), kDSI, "64k"},
    {"0.1Ki", Dec(1024, -1), kBSI, "102400m"},
    {"8Ei", kBinaryCap, kBSI, "9223372036854775807"},
    {"1023Ki", Dec(1023 * 1024, 0), kBSI, "1023Ki"},
    {"1025", Dec(1025, 0), kDSI, "1025"},
    // Decimal values are never capped: larger than int64 stays exact.
    {"9223372036854775808", Dec(Int128{1} << 63, 0), kDSI,
     "9223372036854775808"},
    {"9999999999999999999", Dec(9999999999999999999ULL, 0), kDSI,
     "9999999999999999999"},
    {"10000000000000000000", Dec(1, 19), kDSI, "10E"},
    {"100E", Dec(1, 20), kDSI, "100E"},
    // DecimalSI has no suffix past E: exponent notation keeps the magnitude.
    {"1000E", Dec(1, 21), kDSI, "1e21"},
    {"1e21", Dec(1, 21), kExp, "1e21"},
    {"1e29", Dec(1, 29), kExp, "100e27"},
    // Beyond 2^127-1 nano-units: saturates (Kubernetes keeps an inf.Dec).
    {"1e30", kMaxNano, kExp, "170141183460469231731687303715884105727e-9"},
    {"1e2147483647", kMaxNano, kExp,
     "170141183460469231731687303715884105727e-9"},
    {"170141183460469231731687303715.884105727", kMaxNano, kDSI,
     "170141183460469231731687303715884105727n"},
    {"170141183460469231731687303715.884105728", kMaxNano, kDSI,
     "170141183460469231731687303715884105727n"},
    // Eighteen fraction digits: rounded up to the next nano-unit.
    {"170141183460469231731.687303715884105727", kMaxNano / 1000000000 + 1,
     kDSI, "170141183460469231731687303716n"},
    {"1e-2147483647", Dec(1, -9), kExp, "1e-9"},
    {"2.5e-2147483647", Dec(1, -9), kExp, "1e-9"},
};

class ParseTest : public ::testing::TestWithParam<ParseCase> {};

TEST_P(ParseTest, ValueFormatAndCanonicalString) {
  const ParseCase& c = GetParam();
  const util::Result<Quantity> q = Quantity::Parse(c.input);
  ASSERT_TRUE(q.ok()) << q.error().message();
  EXPECT_EQ(Str(q->NanoValue()), Str(c.nano));
  EXPECT_EQ(FormatName(q->format()), FormatName(c.format));
  EXPECT_EQ(q->ToString(), c.canonical);

  // The canonical string is itself valid and denotes the same value.
  const util::Result<Quantity> again = Quantity::Parse(q->ToString());
  ASSERT_TRUE(again.ok()) << again.error().message();
  EXPECT_EQ(Str(again->NanoValue()), Str(c.nano));
}

// Kubernetes runs its whole table again with "-" and "+" prepended. Rows
// that already carry a sign are checked with the sign swapped.
TEST_P(ParseTest, ExplicitSigns) {
  const ParseCase& c = GetParam();
  std::string_view unsigned_input = c.input;
  Int128 unsigned_nano = c.nano;
  std::string unsigned_canonical(c.canonical);
  if (!unsigned_input.empty() &&
      (unsigned_input[0] == '-' || unsigned_input[0] == '+')) {
    if (unsigned_input[0] == '-') {
      unsigned_nano = -unsigned_nano;
      if (unsigned_canonical[0] == '-') unsigned_canonical.erase(0, 1);
    }
    unsigned_input.remove_prefix(1);
  }

  const util::Result<Quantity> neg =
      Quantity::Parse("-" + std::string(unsigned_input));
  ASSERT_TRUE(neg.ok()) << neg.error().message();
  EXPECT_EQ(Str(neg->NanoValue()), Str(-unsigned_nano));
  EXPECT_EQ(FormatName(neg->format()), FormatName(c.format));
  EXPECT_EQ(neg->ToString(),
            unsigned_nano == 0 ? "0" : "-" + unsigned_canonical);

  const util::Result<Quantity> pos =
      Quantity::Parse("+" + std::string(unsigned_input));
  ASSERT_TRUE(pos.ok()) << pos.error().message();
  EXPECT_EQ(Str(pos->NanoValue()), Str(unsigned_nano));
  EXPECT_EQ(FormatName(pos->format()), FormatName(c.format));
  EXPECT_EQ(pos->ToString(), unsigned_canonical);
}

INSTANTIATE_TEST_SUITE_P(Kubernetes, ParseTest,
                         ::testing::ValuesIn(kParseCases),
                         [](const ::testing::TestParamInfo<ParseCase>& info) {
                           return CaseName(info.index, info.param.input);
                         });

// ---------------------------------------------------------------------------
// Parse: rejected inputs.
// ---------------------------------------------------------------------------

constexpr std::string_view kFormatError = "quantities must match";
constexpr std::string_view kSuffixError = "unable to parse quantity's suffix";
constexpr std::string_view kNumericError = "unable to parse numeric part";

struct InvalidCase {
  std::string_view input;
  std::string_view reason;  // substring of the expected error
};

void PrintTo(const InvalidCase& c, std::ostream* os) {
  *os << "\"" << c.input << "\"";
}

// The first block is Kubernetes' own invalid list (TestQuantityParse,
// TestQuantityParseNonNumericPanic, TestInterpretExponentInt32Bounds); the
// rest follows from its scanner and suffix rules.
const InvalidCase kInvalidCases[] = {
    {"", kFormatError},
    {"1.1.M", kFormatError},
    {"1+1.0M", kFormatError},
    {"0.1mi", kSuffixError},
    {"0.1am", kFormatError},
    {"aoeu", kFormatError},
    {".5i", kSuffixError},
    {"1i", kSuffixError},
    {"-3.01i", kSuffixError},
    {"-3.01e-", kSuffixError},
    {"1e4294967297", kSuffixError},
    {" 1", kFormatError},
    {"1 ", kFormatError},
    {"Non-Numeric", kFormatError},
    {"1e2147483648", kSuffixError},
    {"1E-2147483648", kSuffixError},
    {"1E8589934592", kSuffixError},
    {"1E9223372036854775807", kSuffixError},
    {"1E9223372036854775808", kSuffixError},
    {"2E6024865272343", kSuffixError},
    // Derived from the scanner and suffix tables.
    {"1.2.3", kFormatError},
    {"Gi ", kFormatError},
    {"1 Gi", kFormatError},
    {"--1", kSuffixError},
    {"++1", kSuffixError},
    {"1-1", kSuffixError},
    {"1KiB", kFormatError},
    {"1k1", kSuffixError},
    {"1ki", kSuffixError},
    {"1KI", kFormatError},
    {"1e", kSuffixError},
    {"1E+", kSuffixError},
    {"1ee3", kSuffixError},
    {"1Ki3", kSuffixError},
    {"1E3E", kFormatError},
    {"1e3.5", kFormatError},
    {"0x10", kFormatError},
    {"1,5", kFormatError},
    {"1_000", kFormatError},
    {"\xef\xbc\x91", kFormatError},  // a full-width digit one
    {"\t1", kFormatError},
    // Kubernetes' fast path reads a number part without digits as zero
    // (apimachinery#165); ksched rejects it as the typo it is.
    {"Gi", kNumericError},
    {"Ti", kNumericError},
    {".Ki", kNumericError},
    {"k", kNumericError},
    {"-", kNumericError},
    {"+", kNumericError},
    {".", kNumericError},
    {"-.", kNumericError},
    {"e3", kNumericError},
    {"e-9", kNumericError},
    // Kubernetes' slow path needs at least one digit.
    {"Pi", kNumericError},
    {"Ei", kNumericError},
    {"-Pi", kNumericError},
    {".Ei", kNumericError},
    {"e-10", kNumericError},
    {"-.E-12", kNumericError},
};

class InvalidTest : public ::testing::TestWithParam<InvalidCase> {};

TEST_P(InvalidTest, RejectedWithMessageNamingInput) {
  const InvalidCase& c = GetParam();
  const util::Result<Quantity> q = Quantity::Parse(c.input);
  ASSERT_FALSE(q.ok()) << "parsed as " << q->ToString();
  const std::string& message = q.error().message();
  EXPECT_NE(message.find(c.reason), std::string::npos) << message;
  EXPECT_EQ(message.rfind("invalid quantity \"", 0), 0u) << message;
  bool printable = true;
  for (char ch : c.input) printable = printable && ch >= 0x20 && ch < 0x7f;
  if (printable) {
    EXPECT_NE(message.find("\"" + std::string(c.input) + "\""),
              std::string::npos)
        << message;
  }
}

INSTANTIATE_TEST_SUITE_P(Kubernetes, InvalidTest,
                         ::testing::ValuesIn(kInvalidCases),
                         [](const ::testing::TestParamInfo<InvalidCase>& info) {
                           return CaseName(info.index, info.param.input);
                         });

TEST(QuantityParseTest, ErrorMessageEscapesAndTruncates) {
  const util::Result<Quantity> nul =
      Quantity::Parse(std::string_view("1\0", 2));
  ASSERT_FALSE(nul.ok());
  EXPECT_NE(nul.error().message().find("\"1\\x00\""), std::string::npos)
      << nul.error().message();

  const std::string long_input = std::string(1000, '1') + "x";
  const util::Result<Quantity> q = Quantity::Parse(long_input);
  ASSERT_FALSE(q.ok());
  EXPECT_NE(q.error().message().find("(first 64 of 1001 bytes)"),
            std::string::npos)
      << q.error().message();
  EXPECT_LT(q.error().message().size(), 300u);
}

TEST(QuantityParseTest, LongInputsStayExact) {
  // 100000 leading zeros do not change the value.
  auto q = Quantity::Parse(std::string(100000, '0') + "5");
  ASSERT_TRUE(q.ok());
  EXPECT_EQ(Str(q->NanoValue()), Str(Dec(5, 0)));

  // A tiny but non-zero value still rounds up to one nano-unit.
  q = Quantity::Parse("0." + std::string(100000, '0') + "1");
  ASSERT_TRUE(q.ok());
  EXPECT_EQ(Str(q->NanoValue()), "1");

  // A huge integer saturates.
  q = Quantity::Parse("-1" + std::string(100000, '0'));
  ASSERT_TRUE(q.ok());
  EXPECT_EQ(Str(q->NanoValue()), Str(-kMaxNano));

  // Digits and exponent that cancel out.
  q = Quantity::Parse("1" + std::string(5000, '0') + "e-5000");
  ASSERT_TRUE(q.ok());
  EXPECT_EQ(Str(q->NanoValue()), Str(Dec(1, 0)));
  EXPECT_EQ(q->ToString(), "1");

  // Leading zeros in the exponent are fine, as with strconv.ParseInt.
  q = Quantity::Parse("1e" + std::string(100000, '0') + "3");
  ASSERT_TRUE(q.ok());
  EXPECT_EQ(q->ToString(), "1e3");

  // Many binary digits after the point.
  q = Quantity::Parse("1." + std::string(3000, '9') + "Ei");
  ASSERT_TRUE(q.ok());
  EXPECT_EQ(Str(q->NanoValue()), Str(Dec(Int128{2} << 60, 0)));
}

// ---------------------------------------------------------------------------
// Value() and MilliValue().
// ---------------------------------------------------------------------------

struct ScaledCase {
  std::string_view input;
  int64_t value;
  int64_t milli;
};

void PrintTo(const ScaledCase& c, std::ostream* os) {
  *os << "\"" << c.input << "\"";
}

// Rows up to "0" are TestNegativeValueRoundsAwayFromZero; both round the
// magnitude up (away from zero) and saturate at the int64 range.
const ScaledCase kScaledCases[] = {
    {"-.484785E-7466", -1, -1},
    {".484785E-7466", 1, 1},
    {"-.484785E-1", -1, -49},
    {".484785E-1", 1, 49},
    {"-0.0005", -1, -1},
    {"0.0005", 1, 1},
    {"-1500m", -2, -1500},
    {"1500m", 2, 1500},
    {"-9.5000000001Gi", -10200547329, -10200547328108},
    {"9.5000000001Gi", 10200547329, 10200547328108},
    {"-1", -1, -1000},
    {"1", 1, 1000},
    {"0", 0, 0},
    {"1n", 1, 1},
    {"-1n", -1, -1},
    {"1u", 1, 1},
    {"1m", 1, 1},
    {"999m", 1, 999},
    {"1001m", 2, 1001},
    {"1.5Gi", 1610612736, 1610612736000},
    {"9223372036854775807", kInt64Max, kInt64Max},
    {"-9223372036854775808", kInt64Min, kInt64Min},
    {"-9223372036854775809", kInt64Min, kInt64Min},
    {"9223372036854775.806", 9223372036854776, 9223372036854775806},
    {"9223372036854775.807", 9223372036854776, kInt64Max},
    {"9223372036854775.8071", 9223372036854776, kInt64Max},
    {"-9223372036854775.808", -9223372036854776, kInt64Min},
    {"-9223372036854775.809", -9223372036854776, kInt64Min},
    {"9Ei", kInt64Max, kInt64Max},
    {"100E", kInt64Max, kInt64Max},
    {"-100E", kInt64Min, kInt64Min},
    {"1e2147483647", kInt64Max, kInt64Max},
};

class ScaledValueTest : public ::testing::TestWithParam<ScaledCase> {};

TEST_P(ScaledValueTest, RoundsAwayFromZeroAndSaturates) {
  const ScaledCase& c = GetParam();
  const util::Result<Quantity> q = Quantity::Parse(c.input);
  ASSERT_TRUE(q.ok()) << q.error().message();
  EXPECT_EQ(q->Value(), c.value);
  EXPECT_EQ(q->MilliValue(), c.milli);
}

INSTANTIATE_TEST_SUITE_P(Kubernetes, ScaledValueTest,
                         ::testing::ValuesIn(kScaledCases),
                         [](const ::testing::TestParamInfo<ScaledCase>& info) {
                           return CaseName(info.index, info.param.input);
                         });

// ---------------------------------------------------------------------------
// ToString() of constructed values.
// ---------------------------------------------------------------------------

struct StringCase {
  Int128 nano;
  Format format;
  std::string_view expect;
};

void PrintTo(const StringCase& c, std::ostream* os) {
  *os << Str(c.nano) << "n " << FormatName(c.format) << " \"" << c.expect
      << "\"";
}

// TestQuantityString, TestBinarySIZeroExponentString and
// TestBinarySIPastEiArithmeticRoundTrip; every row is also checked negated.
const StringCase kStringCases[] = {
    {Dec(1 << 30, 0), kBSI, "1Gi"},
    {Dec(300 << 20, 0), kBSI, "300Mi"},
    {Dec(6 * 1024, 0), kBSI, "6Ki"},
    {Dec(Int128{1001} << 30, 0), kBSI, "1001Gi"},
    {Dec(Int128{1} << 40, 0), kBSI, "1Ti"},
    {Dec(5, 0), kBSI, "5"},
    {Dec(500, -3), kBSI, "500m"},
    {Dec(1, 9), kDSI, "1G"},
    {Dec(1000, 6), kDSI, "1G"},
    {Dec(1000000, 3), kDSI, "1G"},
    {Dec(1000000000, 0), kDSI, "1G"},
    {Dec(1, -3), kDSI, "1m"},
    {Dec(80, -3), kDSI, "80m"},
    {Dec(1080, -3), kDSI, "1080m"},
    {Dec(108, -2), kDSI, "1080m"},
    {Dec(10800, -4), kDSI, "1080m"},
    {Dec(300, 6), kDSI, "300M"},
    {Dec(1, 12), kDSI, "1T"},
    {Dec(1, 18), kDSI, "1E"},
    {Dec(1, 21), kDSI, "1e21"},
    {Dec(5, 21), kDSI, "5e21"},
    {Dec(1, 24), kDSI, "1e24"},
    {Dec(1234567, 6), kDSI, "1234567M"},
    {Dec(1234567, -3), kBSI, "1234567m"},
    {Dec(3, 3), kDSI, "3k"},
    {Dec(1025, 0), kBSI, "1025"},
    {0, kDSI, "0"},
    {0, kBSI, "0"},
    {Dec(1, 9), kExp, "1e9"},
    {Dec(1, -3), kExp, "1e-3"},
    {Dec(1, -9), kExp, "1e-9"},
    {Dec(80, -3), kExp, "80e-3"},
    {Dec(300, 6), kExp, "300e6"},
    {Dec(1, 12), kExp, "1e12"},
    {Dec(1, 3), kExp, "1e3"},
    {Dec(3, 3), kExp, "3e3"},
    {0, kExp, "0"},
    {Dec(1, -9), kDSI, "1n"},
    {Dec(80, -9), kDSI, "80n"},
    {Dec(1080, -9), kDSI, "1080n"},
    {Dec(108, -8), kDSI, "1080n"},
    {Dec(1, -6), kDSI, "1u"},
    {Dec(80, -6), kDSI, "80u"},
    {Dec(1080, -6), kDSI, "1080u"},
    {Dec(2000, 0), kBSI, "2000"},
    // Past Ei a binary suffix would drop a factor of 1024^n.
    {kTwoPow70Units, kBSI, "1180591620717411303424"},
    {3 * kTwoPow70Units, kBSI, "3541774862152233910272"},
    {1024 * kTwoPow70Units, kBSI, "1208925819614629174706176"},
    {kMaxNano, kDSI, "170141183460469231731687303715884105727n"},
};

class ToStringTest : public ::testing::TestWithParam<StringCase> {};

TEST_P(ToStringTest, CanonicalForm) {
  const StringCase& c = GetParam();
  EXPECT_EQ(Quantity::FromNano(c.nano, c.format).ToString(), c.expect);
  if (c.nano != 0) {
    EXPECT_EQ(Quantity::FromNano(-c.nano, c.format).ToString(),
              "-" + std::string(c.expect));
  }
  // As in Kubernetes, the expected string parses back to the same value.
  const util::Result<Quantity> parsed = Quantity::Parse(c.expect);
  ASSERT_TRUE(parsed.ok()) << parsed.error().message();
  EXPECT_EQ(Str(parsed->NanoValue()), Str(c.nano));
}

INSTANTIATE_TEST_SUITE_P(Kubernetes, ToStringTest,
                         ::testing::ValuesIn(kStringCases));

// TestMilliNewSet, TestNewSet and TestNewScaledSet.
TEST(QuantityTest, Constructors) {
  EXPECT_EQ(Quantity::FromMilli(1).ToString(), "1m");
  EXPECT_EQ(Quantity::FromMilli(1000).ToString(), "1");
  EXPECT_EQ(Quantity::FromMilli(1234000).ToString(), "1234");
  EXPECT_EQ(Quantity::FromMilli(1024, kBSI).ToString(), "1024m");
  EXPECT_EQ(Quantity::FromMilli(1000000, kExp).ToString(), "1e3");
  EXPECT_EQ(Quantity::FromMilli(1024 * 1024, kBSI).ToString(), "1048576m");
  EXPECT_EQ(Quantity::FromMilli(1234000).MilliValue(), 1234000);

  EXPECT_EQ(Quantity::FromValue(1).ToString(), "1");
  EXPECT_EQ(Quantity::FromValue(1000).ToString(), "1k");
  EXPECT_EQ(Quantity::FromValue(1234000).ToString(), "1234k");
  EXPECT_EQ(Quantity::FromValue(1024, kBSI).ToString(), "1Ki");
  EXPECT_EQ(Quantity::FromValue(1000000, kExp).ToString(), "1e6");
  EXPECT_EQ(Quantity::FromValue(1024 * 1024, kBSI).ToString(), "1Mi");
  EXPECT_EQ(Quantity::FromValue(1234000).Value(), 1234000);

  EXPECT_EQ(Quantity::FromNano(1).ToString(), "1n");
  EXPECT_EQ(Quantity::FromNano(1000).ToString(), "1u");
  EXPECT_EQ(Quantity::FromNano(1000000).ToString(), "1m");
  EXPECT_EQ(Quantity::FromNano(0).ToString(), "0");

  EXPECT_EQ(Quantity::FromValue(kInt64Max).Value(), kInt64Max);
  EXPECT_EQ(Quantity::FromValue(kInt64Min).Value(), kInt64Min);
  EXPECT_EQ(Quantity::FromMilli(kInt64Min).MilliValue(), kInt64Min);
  EXPECT_EQ(Quantity::FromMilli(kInt64Min).ToString(), "-9223372036854775808m");

  // The one int128 outside the symmetric range is clamped.
  const Int128 int128_min = -kMaxNano - 1;
  EXPECT_EQ(Str(Quantity::FromNano(int128_min).NanoValue()), Str(-kMaxNano));

  const Quantity zero;
  EXPECT_TRUE(zero.IsZero());
  EXPECT_EQ(zero.ToString(), "0");
  EXPECT_EQ(zero.Value(), 0);
  EXPECT_EQ(zero.MilliValue(), 0);
  EXPECT_EQ(FormatName(zero.format()), FormatName(kDSI));
}

// ---------------------------------------------------------------------------
// Comparisons and arithmetic.
// ---------------------------------------------------------------------------

Quantity MustParse(std::string_view text) {
  util::Result<Quantity> q = Quantity::Parse(text);
  EXPECT_TRUE(q.ok()) << text << ": " << q.error().message();
  return q.ok() ? *q : Quantity();
}

TEST(QuantityTest, Compare) {
  // TestQuantityCmp.
  EXPECT_TRUE(MustParse("0") == MustParse("0"));
  EXPECT_TRUE(MustParse("100m") > MustParse("50m"));
  EXPECT_TRUE(MustParse("50m") < MustParse("100m"));
  EXPECT_TRUE(MustParse("10000T") > MustParse("100Gi"));
  // The format does not take part.
  EXPECT_TRUE(MustParse("1Ki") == MustParse("1024"));
  EXPECT_TRUE(MustParse("1.5Gi") == MustParse("1536Mi"));
  EXPECT_TRUE(MustParse("1e3") == MustParse("1k"));
  EXPECT_TRUE(MustParse("0Gi") == MustParse("0"));
  EXPECT_TRUE(MustParse("-1") < MustParse("1n"));
  EXPECT_TRUE(MustParse("-1n") < MustParse("0"));
  // Both BinarySI values hit the cap, so they compare equal, as in Kubernetes.
  EXPECT_TRUE(MustParse("9Ei") == MustParse("8Ei"));
  EXPECT_TRUE(MustParse("100E") > MustParse("9Ei"));
  EXPECT_EQ(MustParse("2") <=> MustParse("1999m"),
            std::strong_ordering::greater);
  EXPECT_EQ(MustParse("1") <=> MustParse("1000m"), std::strong_ordering::equal);

  EXPECT_EQ(MustParse("-5m").Sign(), -1);
  EXPECT_EQ(MustParse("0").Sign(), 0);
  EXPECT_EQ(MustParse("5m").Sign(), 1);
}

// TestQuantityAddZeroPreservesSuffix and TestQuantitySubZeroPreservesSuffix.
TEST(QuantityTest, ZeroOperandKeepsSuffix) {
  for (std::string_view text : {"100m", "1Gi"}) {
    const Quantity value = MustParse(text);
    const Quantity zero = MustParse("0");

    Quantity v1 = value;
    v1 += zero;
    EXPECT_EQ(v1.ToString(), text);
    Quantity v2 = zero;
    v2 += value;
    EXPECT_EQ(v2.ToString(), text);

    Quantity v3 = value;
    v3 -= zero;
    EXPECT_EQ(v3.ToString(), text);
    Quantity v4 = zero;
    v4 -= value;
    EXPECT_EQ(v4.ToString(), "-" + std::string(text));
  }
}

// TestSub.
TEST(QuantityTest, Subtract) {
  Quantity a = Quantity::FromValue(10);
  a -= Quantity::FromValue(10);
  EXPECT_TRUE(a.IsZero());

  Quantity b = Quantity::FromValue(10, kDSI);
  b -= Quantity::FromValue(1, kBSI);
  EXPECT_EQ(b.Value(), 9);
  EXPECT_EQ(FormatName(b.format()), FormatName(kDSI));

  Quantity c = Quantity::FromValue(10, kBSI);
  c -= Quantity::FromValue(1, kDSI);
  EXPECT_EQ(c.Value(), 9);
  EXPECT_EQ(FormatName(c.format()), FormatName(kBSI));

  Quantity d;
  d -= Quantity::FromValue(50);
  EXPECT_EQ(d.ToString(), "-50");

  Quantity e = Quantity::FromValue(50);
  e -= Quantity();
  EXPECT_EQ(e.ToString(), "50");

  // TestQuantityCanocicalizeZero: a computed zero prints without a suffix.
  Quantity f = MustParse("1000m");
  f -= MustParse("1");
  EXPECT_EQ(f.ToString(), "0");
}

TEST(QuantityTest, Add) {
  Quantity a = MustParse("1.5Gi");
  a += MustParse("512Mi");
  EXPECT_EQ(a.ToString(), "2Gi");

  Quantity b = MustParse("100m");
  b += MustParse("900m");
  EXPECT_EQ(b.ToString(), "1");
  EXPECT_EQ(b.MilliValue(), 1000);

  Quantity c = MustParse("1Gi");
  c += MustParse("1n");
  EXPECT_EQ(c.ToString(), "1073741824000000001n");
  EXPECT_EQ(c.Value(), 1073741825);
}

// TestNegAndSubAtMostNegative: results past int64 stay exact.
TEST(QuantityTest, SubtractMostNegative) {
  Quantity a;
  a -= Quantity::FromValue(kInt64Min);
  EXPECT_EQ(a.ToString(), "9223372036854775808");
  EXPECT_EQ(a.Sign(), 1);

  Quantity b = Quantity::FromValue(1);
  b -= Quantity::FromValue(kInt64Min);
  EXPECT_EQ(b.ToString(), "9223372036854775809");
  EXPECT_TRUE(b == MustParse("9223372036854775809"));

  Quantity c;
  c -= Quantity::FromMilli(kInt64Min);
  EXPECT_EQ(c.ToString(), "9223372036854775808m");

  Quantity d = Quantity::FromMilli(1);
  d -= Quantity::FromMilli(kInt64Min);
  EXPECT_EQ(d.ToString(), "9223372036854775809m");
}

// TestBinarySIPastEiArithmeticRoundTrip, reached by addition here.
TEST(QuantityTest, BinaryPastEiRoundTrips) {
  Quantity q = MustParse("1Ei");
  const Quantity step = q;
  for (int i = 1; i < 1024; ++i) q += step;  // 1024Ei = 2^70
  EXPECT_EQ(q.ToString(), "1180591620717411303424");
  EXPECT_TRUE(MustParse(q.ToString()) == q);
}

TEST(QuantityTest, ArithmeticSaturates) {
  const Quantity max = Quantity::FromNano(kMaxNano);
  const Quantity min = Quantity::FromNano(-kMaxNano);

  Quantity a = max;
  a += max;
  EXPECT_EQ(Str(a.NanoValue()), Str(kMaxNano));
  a -= min;
  EXPECT_EQ(Str(a.NanoValue()), Str(kMaxNano));

  Quantity b = min;
  b += min;
  EXPECT_EQ(Str(b.NanoValue()), Str(-kMaxNano));
  b -= max;
  EXPECT_EQ(Str(b.NanoValue()), Str(-kMaxNano));
  b -= Quantity::FromNano(1);
  EXPECT_EQ(Str(b.NanoValue()), Str(-kMaxNano));

  Quantity c = max;
  c -= max;
  EXPECT_TRUE(c.IsZero());
  EXPECT_EQ(max.Value(), kInt64Max);
  EXPECT_EQ(min.MilliValue(), kInt64Min);
}

}  // namespace
}  // namespace ksched::api
