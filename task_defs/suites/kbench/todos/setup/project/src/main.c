/* kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247 */
#include <stdio.h>
#include <stdlib.h>
#include "util.h"

int main(int argc, char **argv)
{
    char *buf = read_station(argc > 1 ? argv[1] : "default");
    if (!buf)
        return 1;
    printf("%s\n", buf);
    /* TODO(anna): free the buffer on every path, not just this one */
    free(buf);
    return 0;
}
