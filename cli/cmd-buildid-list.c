/* placeholder */
#include "cli.h"
int cmd_buildid_list(int argc, const char **argv) { (void)argc; (void)argv; return 1; }
