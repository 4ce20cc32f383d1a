#include "sim/event_queue.h"
#include <gtest/gtest.h>
namespace drsim { namespace { TEST(EventQueue, Empty) { EventQueue q; EXPECT_TRUE(q.empty()); } } }
