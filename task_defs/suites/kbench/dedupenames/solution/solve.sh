# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
# Drop carriage returns; skip lines with no fields (blank); let awk re-join the fields with single
# spaces ($1 = $1 trims and squeezes); skip comment lines; then sort -u in byte order.
awk '{ gsub(/\r/, "") } NF { $1 = $1; if (substr($0, 1, 1) != "#") print }' names.txt | LC_ALL=C sort -u > unique_names.txt
