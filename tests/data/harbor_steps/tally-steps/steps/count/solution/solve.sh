#!/bin/bash
printf '#!/bin/bash\nwc -l < /app/items.txt\n' > /app/tally.sh
chmod +x /app/tally.sh
