# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
python3 -c 'import tarfile; tf = tarfile.open("backup.tar.gz", "w:gz"); tf.add("site"); tf.close()'
