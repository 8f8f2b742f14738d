/* kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247 */
#include <ctype.h>

int is_ident_char(int c)
{
    //TODO handle UTF-8 identifiers
    return isalnum(c) || c == '_';
}
