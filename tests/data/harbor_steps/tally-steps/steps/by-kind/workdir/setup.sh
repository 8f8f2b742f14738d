#!/bin/bash
# runs in the work folder before the step's session, then goes
set -euo pipefail
printf 'plum fruit\n' >> items.txt
rm -- "$0"
