// TagQueue (src/transport/matching/tag_queue.hpp): oldest value per tag
// first, whichever way the values leave (from the front, from the middle,
// by erase_if), across the reuse of its storage; checked against a plain
// list that does the same the obvious way.
#include <gtest/gtest.h>

#include <algorithm>
#include <list>
#include <random>
#include <utility>

#include "transport/matching/tag_queue.hpp"

namespace rcoll::transport {
namespace {

struct Value {
  Tag tag;
  int id;
};

// The obvious implementation.
class Reference {
 public:
  void push(Tag tag, int id) { values_.push_back({tag, id}); }
  int take(Tag tag) {
    auto it = std::find_if(values_.begin(), values_.end(), [tag](const Value& v) { return v.tag == tag; });
    if (it == values_.end()) return -1;
    int id = it->id;
    values_.erase(it);
    return id;
  }
  void erase_odd() { values_.remove_if([](const Value& v) { return v.id % 2 != 0; }); }
  std::size_t size() const { return values_.size(); }

 private:
  std::list<Value> values_;
};

int take(TagQueue<int>& queue, Tag tag) {
  int id = -1;
  return queue.take(tag, id) ? id : -1;
}

TEST(TagQueue, TakesTheOldestValueOfATag) {
  TagQueue<int> queue;
  queue.push(1, 10);
  queue.push(2, 20);
  queue.push(1, 11);
  EXPECT_EQ(queue.size(), 3u);
  EXPECT_TRUE(queue.contains(2));
  EXPECT_EQ(take(queue, 1), 10);
  EXPECT_EQ(take(queue, 1), 11);
  EXPECT_EQ(take(queue, 1), -1);
  EXPECT_EQ(take(queue, 2), 20);
  EXPECT_TRUE(queue.empty());
}

TEST(TagQueue, DrainHandsOverEveryValueOldestFirst) {
  TagQueue<int> queue;
  for (int i = 0; i < 5; ++i) queue.push(static_cast<Tag>(i % 2), i);
  EXPECT_EQ(take(queue, 0), 0);  // leaves from the front
  EXPECT_EQ(take(queue, 1), 1);
  std::vector<int> drained;
  queue.drain([&](int id) { drained.push_back(id); });
  EXPECT_EQ(drained, (std::vector<int>{2, 3, 4}));
  EXPECT_TRUE(queue.empty());
  EXPECT_FALSE(queue.any_of([](int) { return true; }));
}

TEST(TagQueue, RandomTrafficMatchesAPlainList) {
  std::mt19937 random(18);
  TagQueue<int> queue;
  Reference reference;
  int next = 0;
  for (int step = 0; step < 20000; ++step) {
    const Tag tag = random() % 4;
    const unsigned what = random() % 100;
    if (what < 35) {  // bursts, so that the queue grows and drains
      for (unsigned n = random() % 3 + 1; n > 0; --n) {
        queue.push(tag, next);
        reference.push(tag, next++);
      }
    } else if (what < 99) {
      ASSERT_EQ(take(queue, tag), reference.take(tag)) << "step " << step;
    } else {
      queue.erase_if([](int id) { return id % 2 != 0; });
      reference.erase_odd();
    }
    ASSERT_EQ(queue.size(), reference.size()) << "step " << step;
  }
}

}  // namespace
}  // namespace rcoll::transport
