/* kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247 */
#include <stdlib.h>
#include <string.h>
#include "util.h"

/* Open TODOS are tracked in the issue tracker, not in comments. */
#define TODO_MAX 10

char *read_station(const char *name)
{
    char *out = malloc(64);
    if (out)
        strncpy(out, name, 63);
    return out;
}
