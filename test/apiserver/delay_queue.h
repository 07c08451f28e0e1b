// DelayQueue: runs tasks after a delay on its own thread, so that a slow
// answer the test asked for never holds one of cpprestsdk's pool threads.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <thread>

namespace ksched::testing::apiserver {

class DelayQueue {
 public:
  DelayQueue();
  // Runs every task still waiting, at once, then stops.
  ~DelayQueue();
  DelayQueue(const DelayQueue&) = delete;
  DelayQueue& operator=(const DelayQueue&) = delete;

  void RunAfter(std::chrono::milliseconds delay, std::function<void()> task);

 private:
  void Run();

  std::mutex mu_;
  std::condition_variable wake_;
  std::multimap<std::chrono::steady_clock::time_point, std::function<void()>>
      tasks_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace ksched::testing::apiserver
