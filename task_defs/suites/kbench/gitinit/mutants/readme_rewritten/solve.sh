# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
set -e
cd notes
git init -q
echo '# Field notes' > readme.md
git add readme.md
git -c user.name="Kbench Mutant" -c user.email="mutant@example.com" commit -q -m 'Start the field notes: add readme.md'
