# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
python3 - <<'PY'
text = open('story.txt', newline='').read()
print(sum(1 for w in text.replace('\n', ' ').split(' ') if w), file=open('answer.txt', 'w'))
PY
