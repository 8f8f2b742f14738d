# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
set -e
export GIT_AUTHOR_NAME="Alt Author" GIT_AUTHOR_EMAIL="alt@example.com"
export GIT_COMMITTER_NAME="Alt Author" GIT_COMMITTER_EMAIL="alt@example.com"
git init -q notes
git -C notes add -- readme.md
printf 'Start the field notes: add readme.md\n' | git -C notes commit -q -F -
