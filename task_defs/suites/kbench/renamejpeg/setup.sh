# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
# Fake image files under photos/ (binary: a JPEG header, a label naming the file, an end marker).
# The text files of photos/ come from setup/.
set -eu

img() {
    mkdir -p "$(dirname "$1")"
    printf '\377\330\377\340\000\020JFIF\000fake image: %s\377\331' "$1" > "$1"
}

img "photos/IMG_0001.jpeg"
img "photos/IMG_0002.jpeg"
img "photos/summer trip.jpeg"
img "photos/scan.jpeg.jpeg"
img "photos/.cover.jpeg"
img "photos/.thumbs/IMG_0001.jpeg"
img "photos/2023/june/beach.jpeg"
img "photos/2023/june/sunset.jpg"
img "photos/2023/dec/tree.jpeg"
img "photos/2023/dec/party.JPEG"
img "photos/2023/dec/snow.Jpeg"
img "photos/raw/DSC 0042.jpeg"
img "photos/album.jpeg/cover.jpeg"
img "photos/album.jpeg/back.png"
img "photos/backup.jpeg.bak"
img "photos/jpeg"
