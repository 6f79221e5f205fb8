#!/bin/sh
# Register Boneyard with the desktop for the current user: the "Open with Boneyard" entry, its icon
# and the MIME types of the files it opens. Nothing needs root; files go under
# ${XDG_DATA_HOME:-~/.local/share}.
#
#   ./install-desktop.sh [PATH/TO/boneyard]   install; the default executable is the bundle's (the
#                                             folder above this one), else `boneyard` on PATH (pip)
#   ./install-desktop.sh --uninstall          remove what an install put there
set -eu

here=$(CDPATH='' cd -- "$(dirname -- "$0")" && pwd)
data=${XDG_DATA_HOME:-$HOME/.local/share}
apps=$data/applications
mime=$data/mime
icons=$data/icons/hicolor

refresh() {
    if command -v update-mime-database >/dev/null 2>&1; then update-mime-database "$mime" || true; fi
    if command -v update-desktop-database >/dev/null 2>&1; then update-desktop-database -q "$apps" || true; fi
    # Refresh an icon cache only where one exists (a stale cache would hide new icons).
    if [ -f "$icons/icon-theme.cache" ] && command -v gtk-update-icon-cache >/dev/null 2>&1; then
        gtk-update-icon-cache -q -t "$icons" 2>/dev/null || true
    else
        touch "$icons" 2>/dev/null || true
    fi
}

if [ "${1:-}" = "--uninstall" ]; then
    rm -f "$apps/boneyard.desktop" "$mime/packages/boneyard.xml" \
          "$icons/scalable/apps/boneyard.svg" "$icons/256x256/apps/boneyard.png"
    refresh
    echo "removed Boneyard's desktop entry, icon and MIME types from $data"
    exit 0
fi

if [ $# -gt 0 ]; then
    exe=$1
elif [ -x "$here/../boneyard" ] && [ -f "$here/../boneyard" ]; then
    exe=$(CDPATH='' cd -- "$here/.." && pwd)/boneyard
elif exe=$(command -v boneyard); then
    :
else
    echo "install-desktop.sh: no boneyard executable found; pass its path" >&2
    exit 1
fi
case $exe in /*) ;; *) exe=$(pwd)/$exe ;; esac
if [ ! -x "$exe" ]; then
    echo "install-desktop.sh: $exe is not an executable" >&2
    exit 1
fi
case $exe in
    *[\"\`\$\\%]*)
        echo "install-desktop.sh: the path $exe has a character a .desktop Exec line cannot hold" >&2
        exit 1 ;;
esac

mkdir -p "$apps" "$mime/packages" "$icons/scalable/apps" "$icons/256x256/apps"
awk -v exe="$exe" '
    /^Exec=/    { print "Exec=\"" exe "\" %F"; next }
    /^TryExec=/ { print "TryExec=" exe; next }
    { print }' "$here/boneyard.desktop" > "$apps/boneyard.desktop"
cp "$here/boneyard-mime.xml" "$mime/packages/boneyard.xml"
cp "$here/boneyard.svg" "$icons/scalable/apps/boneyard.svg"
cp "$here/boneyard.png" "$icons/256x256/apps/boneyard.png"
refresh
echo "installed Boneyard's desktop entry ($exe), icon and MIME types into $data"
