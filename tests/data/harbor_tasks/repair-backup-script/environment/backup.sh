#!/bin/bash
# copy the .txt files of data/ into archive/
cd "$(dirname "$0")"
mkdir -p archive
for f in $(ls data/*.txt); do
  cp $f archive/
done
