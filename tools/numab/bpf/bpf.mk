# SPDX-License-Identifier: GPL-2.0
# numabctl's BPF backend (backend.c, bpf/numab_vmas.bpf.c), included by the
# Makefile.  Built when clang, bpftool and libbpf are there (Debian: clang,
# bpftool, libbpf-dev); without them numabctl builds without it and
# 'numabctl status' says so.  NUMABCTL_BPF=0 leaves it out on purpose.
NUMABCTL_BPF ?= auto
BPFTOOL ?= bpftool
BPF_OUT := build-bpf
SRCS += backend.c bpfprog.c
HDRS += backend.h
.DEFAULT_GOAL := all

ifneq ($(NUMABCTL_BPF),0)
BPF_LIBS := $(shell $(PKG_CONFIG) --libs libbpf 2>/dev/null)
HAVE_BPF := $(if $(and $(BPF_LIBS),$(shell command -v $(CLANG) 2>/dev/null),$(shell command -v $(BPFTOOL) 2>/dev/null)),1)
endif

ifeq ($(HAVE_BPF),1)
ALL_CFLAGS += -DNX_HAVE_BPF -I$(BPF_OUT) $(shell $(PKG_CONFIG) --cflags libbpf)
SCOLS_LIBS += $(BPF_LIBS) -lz
HDRS += $(BPF_OUT)/numab_vmas.skel.h

# CO-RE: the program carries its own minimal kernel types (numab_types.h),
# no vmlinux.h; libbpf relocates them against the running kernel's BTF
$(BPF_OUT)/numab_vmas.bpf.o: bpf/numab_vmas.bpf.c bpf/numab_types.h bpf/numab_rec.h
	@mkdir -p $(BPF_OUT)
	$(CLANG) -g -O2 -target bpf -I/usr/include/$(shell $(CC) -dumpmachine) \
		-Ibpf -c $< -o $@

$(BPF_OUT)/numab_vmas.skel.h: $(BPF_OUT)/numab_vmas.bpf.o
	$(BPFTOOL) gen skeleton $< name numab_vmas > $@.tmp && mv $@.tmp $@
endif

.PHONY: bpf-clean
clean: bpf-clean
bpf-clean:
	rm -rf $(BPF_OUT)
