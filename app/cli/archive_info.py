"""``boneyard info ARCHIVE``: the resources an NWN archive holds (docs/cli.md, "Neverwinter Nights
resources")."""

from __future__ import annotations

import json
from argparse import Namespace
from collections import Counter

from app.formats.nwn.archives import open_archive
from app.formats.nwn.archives.entries import Archive, Entry
from app.cli.wording import counted


def archive_facts(archive: Archive) -> dict:
    """The listing as ``info --json`` prints it."""
    return {"archive": {"path": str(archive.path), "type": archive.kind, "version": archive.version,
                        "resources": [_resource_facts(entry) for entry in archive.entries]}}


def _resource_facts(entry: Entry) -> dict:
    """Name, type and size (uncompressed); a compressed entry adds the bytes it is stored in."""
    if not entry.compressed:
        return {"name": entry.name, "type": entry.type, "size": entry.size}
    return {"name": entry.name, "type": entry.type, "size": entry.unpacked_size, "stored_size": entry.size}


def archive_info(args: Namespace) -> int:
    """Print the archive's listing (JSON, or a summary line and one line per resource)."""
    facts = archive_facts(open_archive(args.files[0]))["archive"]
    if args.json:
        print(json.dumps({"archive": facts}, indent=2))
        return 0
    counts = Counter(resource["type"] for resource in facts["resources"])
    kinds = ", ".join(f"{count} {kind}" for kind, count in sorted(counts.items())) or "empty"
    lines = [f"archive:    {facts['path']}", f"type:       {facts['type']} {facts['version']}",
             f"resources:  {len(facts['resources'])} ({kinds})"]
    lines += [f"  {r['name']}.{r['type']}  {counted(r['size'], 'byte')}"
              + (f" ({r['stored_size']} stored)" if "stored_size" in r else "") for r in facts["resources"]]
    print("\n".join(lines))
    return 0
