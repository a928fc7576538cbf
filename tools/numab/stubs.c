#include "numabctl.h"
int cmd_watch(int argc, char **argv) { (void)argc; (void)argv; return NX_ENOTSUP; }
int cmd_trace(int argc, char **argv) { (void)argc; (void)argv; return NX_ENOTSUP; }
int cmd_report(int argc, char **argv) { (void)argc; (void)argv; return NX_ENOTSUP; }
