# SPDX-License-Identifier: GPL-2.0
#
# numab: NUMA-balancing VMA scanner introspection and scan-filter fixes for
# memory tiering. `make help` lists the targets.
#
# The kernel tree and build folders live in NUMAB_CACHE (default
# ~/.cache/numab), outside the repository, and are rebuilt incrementally.

NUMAB_CACHE ?= $(HOME)/.cache/numab
NUMAB_OUT ?= $(CURDIR)/build
export NUMAB_CACHE NUMAB_OUT

# The kernel line the targets work on (kernel/LINE/: BASE and patches/):
# mainline, the series' primary line, or 6.12, its LTS backport.
# NUMAB_KLINE in the environment sets the default; the scripts read it.
KLINE ?= $(or $(NUMAB_KLINE),mainline)
NUMAB_KLINE := $(KLINE)
export NUMAB_KLINE
# what the guest boots with under /numab/: the line's guest programs, numabctl
GUEST_DIR = $(NUMAB_OUT)/guest/$(KLINE)

# make check T=testbed,runner    categories (tests/run -t)
# make check TESTS=promote       only units whose name contains a pattern
#                                (TESTS=@6.12: the units booting 6.12)
# make check KLINE=6.12          that line alone (default: every line, the
#                                rows of tests/vm/TESTS on the lines they name)
# make check ALL_ROWS=1          every unit on every line checked
T ?=
TESTS ?=
VARIANT ?= test
ALL_ROWS ?=
CHECK_KLINES ?= $(if $(filter command line,$(origin KLINE)),$(KLINE),all)
CHECK_ARGS = --kline $(CHECK_KLINES) $(if $(ALL_ROWS),--all-rows) $(if $(T),-t $(T))

.PHONY: all help deps kernel kernel-debug kernel-stock kernel-base kernel-tree guest numabctl \
	check check-host vm shell demo bench servers series-import series-export \
	series-status series-post series-pin clean distclean

all: kernel guest numabctl

help:
	@echo 'numab targets (KLINE=mainline|6.12: the kernel line they work on, default'
	@echo 'mainline; make check tests every line unless KLINE is given):'
	@echo '  make demo          the stranding and its fix side by side in the tiered'
	@echo '                     testbed, legacy vs numab filters (QUICK=1: short run)'
	@echo '  make check         build everything, run host and VM tests on every kernel line'
	@echo '                     (T=host,numabctl,testbed,series,tools,runner,stock,servers  TESTS=pattern'
	@echo '                     KLINE=6.12: one line  ALL_ROWS=1: every unit on every line)'
	@echo '  make servers       PostgreSQL, Redis and memcached from Debian on the slow'
	@echo '                     tier: stock vs legacy vs numab, into build/servers'
	@echo '                     (SERVERS=postgres MODES=move CONFIGS=stock,numab SECONDS=90)'
	@echo '  make bench         legacy vs numab benchmarks into build/bench (B=H1: numabctl on this host, no guest)'
	@echo '                     (B="P1 P5" a subset, QUICK=1 the short CI pass)'
	@echo '  make deps          install what is missing (apt-get)'
	@echo '  make kernel        build the patched test kernel (incremental)'
	@echo '  make kernel-debug  build the debug kernel (KASAN, lockdep, ...)'
	@echo '  make kernel-stock  fetch the stock kernel: Debian'"'"'s kernel image of the base'"'"'s version'
	@echo '  make kernel-base   build the base (numab-base) with the test config'
	@echo '  make guest         build the guest test programs'
	@echo '  make numabctl      build tools/numab/numabctl'
	@echo '  make vm CMD="..."  run a command in the tiered guest'
	@echo '  make shell         interactive shell in the tiered guest'
	@echo '  make series-import re-apply kernel/LINE/patches onto the kernel tree'
	@echo '  make series-export write the kernel tree commits to kernel/LINE/patches'
	@echo '  make series-status state of the kernel tree vs kernel/LINE/patches'
	@echo '  make series-post   the series signed by you (git config) in build/series-post/LINE'
	@echo '  make series-pin    move kernel/LINE/BASE to the newest version in its archive'

deps:
	@scripts/deps

kernel: deps
	@scripts/build-kernel test

kernel-debug: deps
	@scripts/build-kernel debug

kernel-stock: deps
	@scripts/build-kernel stock

kernel-base: deps
	@scripts/build-kernel base

kernel-tree: deps
	@scripts/kernel-tree prepare

guest: kernel-tree
	@$(MAKE) -s -C tests OUT=$(NUMAB_OUT) GUEST=$(GUEST_DIR) KTREE="$$(scripts/kernel-tree path)"

numabctl: deps
	@if [ -f tools/numab/Makefile ]; then \
		$(MAKE) -s -C tools/numab && \
		mkdir -p $(GUEST_DIR)/bin && \
		cp tools/numab/numabctl $(GUEST_DIR)/bin/; \
	fi

# What the units need, line by line (tests/run --needs: the tree, the
# kernels, the guest programs), is built first; then the tests run once.
check: deps numabctl
	@needs=$$(tests/run $(CHECK_ARGS) --needs $(TESTS)) || exit 1; \
	echo "$$needs" | while read -r line what; do \
		case "$$what" in \
		'') ;; \
		tree) NUMAB_KLINE=$$line scripts/kernel-tree prepare ;; \
		guest) $(MAKE) -s guest numabctl KLINE=$$line ;; \
		*) NUMAB_KLINE=$$line scripts/build-kernel $$what ;; \
		esac || exit 1; \
	done
	@tests/run $(CHECK_ARGS) $(TESTS)

check-host: deps
	@tests/run -t host,numabctl

vm: kernel guest numabctl
	@scripts/vm --variant $(VARIANT) -- $(if $(CMD),$(CMD),'cat /proc/cmdline')

shell: kernel guest numabctl
	@scripts/vm --variant $(VARIANT) --shell

# make demo QUICK=1    the short demo CI runs (scripts/demo --quick)
demo: deps kernel guest numabctl
	@scripts/demo $(if $(QUICK),--quick)

# make servers SERVERS=postgres,redis MODES=move,fill CONFIGS=stock,legacy,numab,side
SERVERS ?=
MODES ?=
CONFIGS ?=
SECONDS ?=
servers: kernel kernel-stock guest numabctl
	@scripts/servers $(if $(SERVERS),--servers $(SERVERS)) $(if $(MODES),--modes $(MODES)) \
		$(if $(CONFIGS),--configs $(CONFIGS)) $(if $(SECONDS),--seconds $(SECONDS))

# make bench B="P1 P5" QUICK=1    (scripts/bench --help); B=H1 (host
# benchmarks only) builds numabctl, no kernel or guest
B ?=
QUICK ?=
BENCH_GUEST := $(if $(strip $(B)),$(filter-out H1 h1,$(B)),all)
bench: $(if $(BENCH_GUEST),kernel guest) numabctl
	@scripts/bench $(if $(QUICK),--quick) $(B)

series-import: deps
	@scripts/kernel-tree import

series-export:
	@scripts/kernel-tree export

series-status:
	@scripts/kernel-tree status

# the series signed by you (git config user.name/email) for posting
series-post:
	@scripts/kernel-tree post $(OUT)

# kernel/LINE/BASE to the newest version its archive has; then make
# kernel and series-export (Documentation/development.rst)
series-pin:
	@scripts/kernel-tree pin

clean:
	rm -rf $(NUMAB_OUT)
	@if [ -f tools/numab/Makefile ]; then $(MAKE) -s -C tools/numab clean; fi

distclean: clean
	rm -rf $(NUMAB_CACHE)
