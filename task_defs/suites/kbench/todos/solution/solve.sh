# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
# grep -w: TODO with no word character (letter, digit, _) on either side; -r includes hidden files.
grep -rlw --null -e TODO project | tr '\0' '\n' | LC_ALL=C sort > answer.txt
