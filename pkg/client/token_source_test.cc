#include "pkg/client/token_source.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "pkg/util/fake_clock.h"

namespace ksched::client {
namespace {

namespace fs = std::filesystem;

class TokenSourceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = fs::temp_directory_path() /
            ("ksched-token-" + std::to_string(::getpid()));
  }
  void TearDown() override { fs::remove(path_); }
  void WriteToken(const std::string& token) {
    std::ofstream(path_) << token;
    // Distinct modification times even on coarse file systems.
    fs::last_write_time(
        path_, fs::last_write_time(path_) + std::chrono::seconds(++writes_));
  }
  fs::path path_;
  int writes_ = 0;
};

TEST_F(TokenSourceTest, StaticTokenWithoutAFile) {
  util::FakeClock clock;
  RestConfig config;
  config.bearer_token = "abc\n";
  TokenSource source(clock, config);
  EXPECT_EQ(source.Token(), "abc");
  EXPECT_EQ(TokenSource(clock, RestConfig{}).Token(), "");
}

// A rotated token is picked up once the recheck interval has passed.
TEST_F(TokenSourceTest, RotatedFileIsReRead) {
  util::FakeClock clock;
  WriteToken("first\n");
  RestConfig config;
  config.token_file = path_.string();
  TokenSource source(clock, config, std::chrono::seconds(1));
  EXPECT_EQ(source.Token(), "first");
  WriteToken("second");
  EXPECT_EQ(source.Token(), "first") << "checked again only after 1 s";
  clock.Advance(std::chrono::seconds(1));
  EXPECT_EQ(source.Token(), "second");
}

// After a 401 the file is looked at again at once.
TEST_F(TokenSourceTest, InvalidateChecksTheFileBeforeTheInterval) {
  util::FakeClock clock;
  WriteToken("first");
  RestConfig config;
  config.token_file = path_.string();
  TokenSource source(clock, config, std::chrono::seconds(60));
  EXPECT_EQ(source.Token(), "first");
  WriteToken("second");
  EXPECT_EQ(source.Token(), "first");
  source.Invalidate();
  EXPECT_EQ(source.Token(), "second");
  WriteToken("third");
  EXPECT_EQ(source.Token(), "second") << "the interval starts again";
}

// While the file is missing or empty, the last good token is kept.
TEST_F(TokenSourceTest, LastGoodTokenSurvivesAMissingFile) {
  util::FakeClock clock;
  WriteToken("good");
  RestConfig config;
  config.token_file = path_.string();
  config.bearer_token = "configured";
  TokenSource source(clock, config, std::chrono::seconds(1));
  EXPECT_EQ(source.Token(), "good");
  fs::remove(path_);
  clock.Advance(std::chrono::seconds(2));
  EXPECT_EQ(source.Token(), "good");
  WriteToken("");
  clock.Advance(std::chrono::seconds(2));
  EXPECT_EQ(source.Token(), "good");
  WriteToken("newer");
  clock.Advance(std::chrono::seconds(2));
  EXPECT_EQ(source.Token(), "newer");
}

TEST_F(TokenSourceTest, ConfiguredTokenUntilTheFileIsReadable) {
  util::FakeClock clock;
  RestConfig config;
  config.token_file = path_.string();  // not written yet
  config.bearer_token = "configured";
  TokenSource source(clock, config, std::chrono::seconds(1));
  EXPECT_EQ(source.Token(), "configured");
  WriteToken("from-file");
  clock.Advance(std::chrono::seconds(1));
  EXPECT_EQ(source.Token(), "from-file");
}

}  // namespace
}  // namespace ksched::client
