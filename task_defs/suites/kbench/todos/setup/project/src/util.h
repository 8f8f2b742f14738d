/* kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247 */
#ifndef UTIL_H
#define UTIL_H
char *read_station(const char *name);
#endif
