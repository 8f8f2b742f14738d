# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
python3 -c 'import os; st = os.statvfs("."); print(st.f_bavail * st.f_frsize // 1024)' > answer.txt
