// SPDX-License-Identifier: GPL-2.0
/*
 * The testbed's memory tiers: with ACPI HMAT on, the CPU-less node 1 sits
 * in a lower tier (a larger memory_tierN id) than node 0; without HMAT
 * both nodes share one tier.
 */
#include "../lib/numab_test.h"
#include "kselftest_harness.h"

TEST(two_tiers)
{
	int t0 = nt_node_tier(0), t1 = nt_node_tier(1);

	TH_LOG("node0 in memory_tier%d, node1 in memory_tier%d", t0, t1);
	ASSERT_GE(t0, 0);
	ASSERT_GE(t1, 0);
	ASSERT_GT(t1, t0);
}

TEST(one_tier)
{
	int t0 = nt_node_tier(0), t1 = nt_node_tier(1);

	TH_LOG("node0 in memory_tier%d, node1 in memory_tier%d", t0, t1);
	ASSERT_GE(t0, 0);
	ASSERT_EQ(t1, t0);
}

TEST_HARNESS_MAIN
