"""The glTF 2.0 container, apart from what its content means: GLB chunks, the JSON (schema-checked),
buffers (GLB chunk, data URI or a file beside the document), required extensions, and accessors —
strided, sparse, quantized or Draco-compressed — read into arrays with every bound checked.

``reader`` and its modules interpret what this reads (nodes → bones, primitives → meshes, animations → clips).
"""

from __future__ import annotations

import base64
import binascii
import re
import struct
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote

import numpy as np

from app import json_text
from app.formats.gltf import objects, schema
from app.formats.gltf.objects import GltfObject
from app.formats.registry import ReadError, regular_size
from app.model import MAX_MAGNITUDE

GLB_MAGIC = b"glTF"
#: What the owner of a glTF 1.0 file can do to open it here.
GLTF1_ADVICE = "convert it to glTF 2.0 first (Cesium's gltf-pipeline upgrades 1.0 files)"
CHUNK_JSON = 0x4E4F534A
CHUNK_BIN = 0x004E4942

COMPONENT_DTYPES = {5120: "<i1", 5121: "<u1", 5122: "<i2", 5123: "<u2", 5125: "<u4", 5126: "<f4"}
DRACO = "KHR_draco_mesh_compression"
#: Most numbers an accessor without a bufferView (zeros, perhaps with sparse values) may hold: such
#: an accessor costs no bytes in the file, so its count alone must not size an allocation.
ZERO_FILL_LIMIT = 1 << 26
#: Extensions whose data the reader takes in (or may ignore without changing what is shown).
#: Texture extensions that name their image in ``textures[i].extensions[NAME].source``, in formats
#: Pillow decodes (KHR_texture_basisu's KTX2 it does not: a file requiring it is refused).
IMAGE_EXTENSIONS = ("EXT_texture_webp", "EXT_texture_avif", "MSFT_texture_dds")
#: Material extensions that change how a surface looks beyond its base colour and texture, which is all
#: the view draws: a file requiring one loads, with a warning naming it (a refusal hid the geometry of
#: Blender's exports of glass, sheen or variants).
APPEARANCE_EXTENSIONS = ("KHR_materials_transmission", "KHR_materials_volume", "KHR_materials_ior",
                         "KHR_materials_specular", "KHR_materials_sheen", "KHR_materials_clearcoat",
                         "KHR_materials_iridescence", "KHR_materials_anisotropy", "KHR_materials_dispersion",
                         "KHR_materials_diffuse_transmission", "KHR_materials_variants")
#: Material extensions the reader takes in: an unlit material is drawn without lighting; a specular-
#: glossiness one's diffuse colour and texture become the base colour and texture.
SPECULAR_GLOSSINESS = "KHR_materials_pbrSpecularGlossiness"
MATERIAL_EXTENSIONS = ("KHR_materials_unlit", SPECULAR_GLOSSINESS)
SUPPORTED_EXTENSIONS = {"KHR_mesh_quantization", DRACO, "KHR_materials_emissive_strength",
                        "KHR_texture_transform", "KHR_lights_punctual", *IMAGE_EXTENSIONS,
                        *MATERIAL_EXTENSIONS, *APPEARANCE_EXTENSIONS}
TYPE_WIDTHS = {"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4, "MAT4": 16}


@dataclass
class Buffer:
    """One buffer's bytes; ``file_offset``: where they start in the file (GLB chunk), else None."""

    data: bytes
    file_offset: int | None


def read_container(path: Path) -> bytes:
    """A ``.gltf`` file's bytes; of a ``.glb``, only the bytes its header says it holds, checked
    against the file's size before they are read."""
    size = regular_size(path)
    try:
        with open(path, "rb") as handle:
            head = handle.read(12)
            if head[:4] != GLB_MAGIC or len(head) < 12:
                return head + handle.read()
            version, length = struct.unpack_from("<II", head, 4)
            check_glb_version(path, version)
            if length > size:
                raise ReadError(path, f"the header says {length} bytes, the file has {size} (truncated?)",
                                offset=8)
            return head + handle.read(max(length - 12, 0))
    except OSError as error:
        raise ReadError(path, f"cannot open: {error.strerror or error}") from None


def load_document(path: Path, data: bytes) -> tuple[GltfObject, list[Buffer], dict]:
    """The parsed document of a ``.glb`` or ``.gltf`` file's bytes, its buffers and its raw JSON."""
    if data[:4] == GLB_MAGIC:
        document, binary = parse_glb(path, data)
    else:
        document, binary = parse_json(path, data, 0), None
    check_required_extensions(path, document)
    gltf = to_gltf(document)
    return gltf, load_buffers(path, gltf, binary), document


class Document:
    """One glTF document's JSON and buffers, and its accessors decoded and checked; every check raises
    ReadError naming ``path`` and the JSON path."""

    def __init__(self, path: Path, gltf: GltfObject, buffers: list[Buffer], document: dict | None = None):
        self.path = path
        self.gltf = gltf
        self.buffers = buffers
        # The raw JSON, for the few fields pygltflib drops (``nodes[i].weights``).
        self.document = document or {}
        # KHR_mesh_quantization: integer positions, normals, uvs and morph deltas are allowed.
        self.quantized = "KHR_mesh_quantization" in (gltf.extensionsUsed or [])
        # Accessor index → data decoded from KHR_draco_mesh_compression, for the primitive being read.
        self.decoded: dict[int, np.ndarray] = {}
        self.draco_sound = False
        # What reading a sound file despite a small fault (a Draco count that disagrees) says.
        self.warnings: list[str] = []

    def fail(self, message: str, offset: int | None = None) -> ReadError:
        return ReadError(self.path, message, offset=offset)

    # --- references and small values ---------------------------------------------------------

    def item(self, table: str, index, where: str):
        """``gltf.<table>[index]``, checking the index."""
        items = getattr(self.gltf, table) or []
        if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < len(items):
            raise self.fail(f"{where}: {table} index {index!r} outside 0..{len(items) - 1}")
        return items[index]

    def floats(self, values, width: int, default, where: str) -> np.ndarray:
        """(width,) finite floats from a JSON list, or ``default`` when absent."""
        if values is None:
            return np.asarray(default, dtype=np.float64)
        try:
            array = np.asarray(values, dtype=np.float64)
        except (TypeError, ValueError):
            raise self.fail(f"{where}: expected {width} numbers, got {values!r}") from None
        if array.shape != (width,) or not np.all(np.abs(array) <= MAX_MAGNITUDE):
            raise self.fail(f"{where}: expected {width} finite numbers within ±{MAX_MAGNITUDE:g}, "
                            f"got {str(values)[:200]}")
        return array

    # --- accessors ---------------------------------------------------------------------------

    def accessor(self, index, where: str, types: tuple[str, ...], components: tuple[int, ...],
                 normalized: bool | None = None) -> np.ndarray:
        """(count, width) float64 (or integer) array of accessor ``index``, bounds checked first.

        Normalised integer accessors become floats in [0, 1] (or [−1, 1]); float data must be finite.
        ``normalized``: what an integer accessor's ``normalized`` flag must be (None: either). Sparse
        accessors get their substitutions (indices checked); Draco-decoded accessors their data.
        """
        where = f"{where} (accessors[{index}])"
        accessor = self.item("accessors", index, where)
        if accessor.type not in types or accessor.componentType not in components:
            raise self.fail(f"{where}: expected type {'/'.join(types)} with component types "
                            f"{components}, got {accessor.type} / {accessor.componentType}")
        integer = accessor.componentType != 5126
        if normalized is not None and integer and bool(accessor.normalized) != normalized:
            raise self.fail(f"{where}: component type {accessor.componentType} must "
                            f"{'' if normalized else 'not '}be normalized here")
        count = accessor.count
        if not isinstance(count, int) or count < 0:
            raise self.fail(f"{where}: count {count!r} is not a non-negative integer")
        dtype = np.dtype(COMPONENT_DTYPES[accessor.componentType])
        width = TYPE_WIDTHS[accessor.type]
        if index in self.decoded:
            values = self.decoded[index].astype(dtype).reshape(-1, width)
            if len(values) != count:
                self._decoded_count(where, count, len(values))
        elif accessor.bufferView is None:
            if count * width > ZERO_FILL_LIMIT:
                raise self.fail(f"{where}: {count} elements without a bufferView (all zeros) is more than "
                                f"this reader fills ({ZERO_FILL_LIMIT // width})")
            values = np.zeros((count, width), dtype)
        else:
            values = self._view_values(accessor.bufferView, accessor.byteOffset, count, dtype, width, where)
        if accessor.sparse is not None:
            values = self._sparse(values.copy(), accessor, index, dtype, width)
        return self._convert(values, accessor, where)

    def _sparse(self, values: np.ndarray, accessor, index: int, dtype: np.dtype, width: int) -> np.ndarray:
        """``values`` with the sparse substitutions of accessor ``index`` applied."""
        sparse, where = accessor.sparse, f"accessors[{index}].sparse"
        count = sparse.count
        if not isinstance(count, int) or not 1 <= count <= len(values):
            raise self.fail(f"{where}.count: {count!r} is not between 1 and the accessor's count "
                            f"{len(values)}")
        if sparse.indices is None or sparse.values is None:
            raise self.fail(f"{where}: needs indices and values")
        component = sparse.indices.componentType
        if component not in (5121, 5123, 5125):
            raise self.fail(f"{where}.indices.componentType: {component!r}; expected 5121, 5123 or 5125")
        index_type = np.dtype(COMPONENT_DTYPES[component])
        indices = self._view_values(sparse.indices.bufferView, sparse.indices.byteOffset, count, index_type,
                                    1, f"{where}.indices", packed=True)[:, 0]
        outside = np.flatnonzero(indices >= len(values))
        if outside.size:
            raise self.fail(f"{where}.indices[{outside[0]}]: index {indices[outside[0]]} is outside "
                            f"0..{len(values) - 1}")
        unordered = np.flatnonzero(np.diff(indices.astype(np.int64)) <= 0)
        if unordered.size:
            raise self.fail(f"{where}.indices[{unordered[0] + 1}]: indices must strictly increase")
        values[indices] = self._view_values(sparse.values.bufferView, sparse.values.byteOffset, count, dtype,
                                            width, f"{where}.values", packed=True)
        return values

    def _view_values(self, view_index, byte_offset, count: int, dtype: np.dtype, width: int, where: str,
                     packed: bool = False) -> np.ndarray:
        """(count, width) elements of ``dtype`` from buffer view ``view_index`` at ``byte_offset``
        (its stride, unless ``packed``: sparse data is tightly packed), every bound checked."""
        view = self.item("bufferViews", view_index, f"{where}.bufferView")
        view_where = f"bufferViews[{view_index}]"
        buffer = self.buffers[self._buffer_index(view.buffer, view_where)]
        element = dtype.itemsize * width
        stride = element if packed else view.byteStride or element
        view_offset, view_length, offset = view.byteOffset or 0, view.byteLength, byte_offset or 0
        for name, value in (("byteOffset", view_offset), ("byteLength", view_length),
                            ("byteStride", stride), ("accessor byteOffset", offset)):
            if not isinstance(value, int) or value < 0:
                raise self.fail(f"{where}: {name} {value!r} is not a non-negative integer")
        if stride < element or stride % dtype.itemsize or offset % dtype.itemsize:
            raise self.fail(f"{where}: stride {stride} / offset {offset} do not fit {element}-byte elements")
        start = view_offset + offset
        file_offset = None if buffer.file_offset is None else buffer.file_offset + start
        if view_offset + view_length > len(buffer.data):
            raise self.fail(f"{view_where} spans bytes {view_offset}..{view_offset + view_length} of "
                            f"buffers[{view.buffer}], which holds {len(buffer.data)}", file_offset)
        needed = offset + (count - 1) * stride + element if count else 0
        if needed > view_length:
            raise self.fail(f"{where}: {count} elements of {element} bytes every {stride} need "
                            f"{needed} bytes of {view_where}, which holds {view_length}", file_offset)
        if count == 0:
            return np.zeros((0, width), dtype)
        return np.ndarray((count, width), dtype, buffer.data, start, (stride, dtype.itemsize))

    def draco(self, primitive, where: str) -> dict[int, np.ndarray]:
        """Accessor index → decoded data for a KHR_draco_mesh_compression primitive (else empty)."""
        extension = (primitive.extensions or {}).get(DRACO)
        if extension is None:
            return {}
        where = f"{where}.extensions.{DRACO}"
        if not isinstance(extension, dict) or not isinstance(extension.get("attributes"), dict):
            raise self.fail(f"{where}: expected an object with bufferView and attributes")
        data = self.view_bytes(extension.get("bufferView"), f"{where}.bufferView")
        import DracoPy  # only files with Draco meshes need it

        try:
            decoded = DracoPy.decode(data)
        except (DracoPy.FileTypeException, ValueError, RuntimeError) as error:
            raise self.fail(f"{where}: the Draco data does not decode ({error})") from None
        attributes = attribute_accessors(primitive.attributes)
        result = {}
        for name, unique_id in extension["attributes"].items():
            if attributes.get(name) is None:
                continue
            attribute = decoded.get_attribute_by_unique_id(unique_id)
            if attribute is None:
                raise self.fail(f"{where}.attributes.{name}: the Draco data has no attribute {unique_id!r}")
            result[attributes[name]] = np.asarray(attribute["data"])
        faces = getattr(decoded, "faces", None)
        if primitive.indices is not None and faces is not None:
            result[primitive.indices] = np.asarray(faces).ravel()
        self.draco_sound = _draco_sound(decoded, result, primitive.indices)
        return result

    def _decoded_count(self, where: str, count: int, decoded: int) -> None:
        """A Draco accessor whose count disagrees with the decoded data: the decoded data is used when
        the primitive's decoded attributes and indices agree with one another (a warning gives both
        counts), else ReadError."""
        if not self.draco_sound:
            raise self.fail(f"{where}: count {count}, but the Draco data holds {decoded} elements")
        self.warnings.append(f"{where}: count {count}, but the Draco data holds {decoded} elements, "
                             "consistent with its indices; the decoded data is used")

    def _convert(self, values: np.ndarray, accessor, where: str) -> np.ndarray:
        if values.dtype.kind == "f":
            with np.errstate(invalid="ignore"):  # signalling NaNs; refused just below
                result = values.astype(np.float64)
            bad = np.flatnonzero(~np.all(np.abs(result) <= MAX_MAGNITUDE, axis=1))
            if bad.size:
                raise self.fail(f"{where}: element {bad[0]} is not finite or beyond ±{MAX_MAGNITUDE:g} "
                                f"({result[bad[0]].tolist()})")
            return result
        if accessor.normalized:
            top = float(np.iinfo(values.dtype).max)
            return np.maximum(values.astype(np.float64) / top, -1.0)
        return values.astype(np.int64)

    def _buffer_index(self, index, where: str) -> int:
        if not isinstance(index, int) or not 0 <= index < len(self.buffers):
            raise self.fail(f"{where}: buffer index {index!r} outside 0..{len(self.buffers) - 1}")
        return index

    def view_bytes(self, index, where: str) -> bytes:
        """The bytes of bufferView ``index``, bounds checked."""
        view = self.item("bufferViews", index, where)
        buffer = self.buffers[self._buffer_index(view.buffer, f"bufferViews[{index}]")]
        start, length = view.byteOffset or 0, view.byteLength
        if not isinstance(start, int) or not isinstance(length, int) or start < 0 or length < 0 \
                or start + length > len(buffer.data):
            raise self.fail(f"{where}: bufferViews[{index}] (bytes {start!r}..+{length!r}) lies outside "
                            f"buffers[{view.buffer}], which holds {len(buffer.data)}", buffer.file_offset)
        return buffer.data[start:start + length]

    def item_of(self, items, index, where: str):
        if not isinstance(index, int) or not 0 <= index < len(items or []):
            raise self.fail(f"{where}: index {index!r} outside 0..{len(items or []) - 1}")
        return items[index]


def _draco_sound(decoded, arrays: dict[int, np.ndarray], indices_accessor) -> bool:
    """Whether a decoded Draco primitive is consistent in itself: every attribute holds one element per
    decoded point, and every index (the faces) names one of those points."""
    decoded_points = getattr(decoded, "points", None)
    points = 0 if decoded_points is None else len(decoded_points)
    for accessor, values in arrays.items():
        if accessor == indices_accessor:
            if values.size and not 0 <= int(values.min()) <= int(values.max()) < points:
                return False
        elif values.ndim == 0 or len(values) != points:
            return False
    return points > 0


def attribute_accessors(attributes) -> dict:
    """Attribute name → accessor index, from a dict or an object of attributes."""
    if isinstance(attributes, dict):
        return attributes
    return {name: value for name, value in vars(attributes).items() if value is not None}


def check_glb_version(path: Path, version: int) -> None:
    """A GLB header's version must be 2: version 1 is glTF 1.0's binary extension, another format."""
    if version != 2:
        raise ReadError(path, f"GLB version {version}{' (glTF 1.0)' if version == 1 else ''}; this reader "
                        f"reads glTF 2.0 (version 2): {GLTF1_ADVICE}", offset=4)


def parse_glb(path: Path, data: bytes) -> tuple[dict, Buffer | None]:
    """The JSON document and the BIN chunk of a GLB file, every length checked."""
    if len(data) < 20:
        raise ReadError(path, "a GLB file needs a 12-byte header and a chunk; "
                        f"the file has {len(data)} bytes", offset=len(data))
    _, version, length = struct.unpack_from("<4sII", data, 0)
    check_glb_version(path, version)
    if length > len(data):
        raise ReadError(path, f"the header says {length} bytes, the file has {len(data)} (truncated?)",
                        offset=8)
    chunks, offset = [], 12
    while offset < length:
        if offset + 8 > length:
            raise ReadError(path, "a chunk header runs past the end of the file", offset=offset)
        chunk_length, chunk_type = struct.unpack_from("<II", data, offset)
        if offset + 8 + chunk_length > length:
            raise ReadError(path, f"a chunk of {chunk_length} bytes runs past the end of the file "
                            f"({length} bytes)", offset=offset)
        chunks.append((chunk_type, offset + 8, data[offset + 8: offset + 8 + chunk_length]))
        offset += 8 + chunk_length
    if not chunks or chunks[0][0] != CHUNK_JSON:
        raise ReadError(path, "the first chunk is not JSON", offset=12)
    document = parse_json(path, chunks[0][2], chunks[0][1])
    binary = next((Buffer(body, start) for kind, start, body in chunks[1:] if kind == CHUNK_BIN), None)
    return document, binary


def parse_json(path: Path, text: bytes, base: int) -> dict:
    """The glTF JSON in ``text`` (at byte ``base`` of the file), its nesting bounded before it is parsed
    (``json_text``). A key given twice is allowed, the last one counting, as files in use repeat keys."""
    try:
        document = json_text.loads(text.decode("utf-8-sig"), parse_int=_json_integer, unique_keys=False)
    except UnicodeDecodeError as error:
        raise ReadError(path, "the JSON is not UTF-8", offset=base + error.start) from None
    except json_text.JsonError as error:
        raise ReadError(path, f"bad JSON: {error.message}", offset=base + (error.offset or 0)) from None
    if not isinstance(document, dict) or not isinstance(document.get("asset"), dict):
        raise ReadError(path, "the JSON has no \"asset\" object: not a glTF document", offset=base)
    _check_asset_version(path, document["asset"].get("version"), base)
    problem = schema.problem(document)
    if problem:
        raise ReadError(path, f"the JSON does not follow the glTF schema: {problem}", offset=base or None)
    return document


def _check_asset_version(path: Path, version, base: int) -> None:
    """A document that says it is glTF 1.x (or another major version) is refused as such, before the
    2.0 schema check would blame one of its 1.0 members (``"scene": "defaultScene"``). A version that
    names no number (``""``) is left to the rest of the document."""
    major = re.match(r"\s*(\d+)", str(version)) if isinstance(version, (str, int, float)) \
        and not isinstance(version, bool) else None
    if major is not None and int(major.group(1)) != 2:
        raise ReadError(path, f"asset.version is {version!r}: this reader reads glTF 2.0; {GLTF1_ADVICE}",
                        offset=base or None)


def _json_integer(digits: str) -> int | float:
    """A JSON integer: as an int up to 18 digits, else a float (infinite past float's range), which
    every index, count and number check then refuses with its JSON path; converting a 400-digit
    integer to a float would raise OverflowError, and one of 4,300 digits does not parse as an int."""
    return int(digits) if len(digits.lstrip("-")) <= 18 else float(digits)


def check_required_extensions(path: Path, document: dict) -> None:
    """ReadError naming the first required extension the reader does not implement."""
    required = document.get("extensionsRequired", [])
    if not isinstance(required, list):
        raise ReadError(path, "extensionsRequired: expected a list of extension names")
    for position, name in enumerate(required):
        if name not in SUPPORTED_EXTENSIONS:
            supported = ", ".join(sorted(SUPPORTED_EXTENSIONS))
            raise ReadError(path, f"extensionsRequired[{position}]: the file needs the extension {name!r}, "
                            f"which this reader does not implement (it reads {supported})")


def to_gltf(document: dict) -> GltfObject:
    """The glTF objects of a document the schema check passed (``objects``: pygltflib's classes and
    defaults, unknown members left out, ``attributes`` left as dicts)."""
    return objects.build("GLTF2", document)


def load_buffers(path: Path, gltf: GltfObject, binary: Buffer | None) -> list[Buffer]:
    """Every buffer's bytes: the GLB chunk, a data: URI or a file beside ``path``."""
    result = []
    for index, buffer in enumerate(gltf.buffers or []):
        where = f"buffers[{index}]"
        uri = buffer.uri
        if uri is None:
            if index != 0 or binary is None:
                raise ReadError(path, f"{where} has no uri and there is no GLB binary chunk")
            loaded = binary
        elif not isinstance(uri, str):
            raise ReadError(path, f"{where}.uri is not a string")
        elif uri.startswith("data:"):
            loaded = Buffer(decode_data_uri(path, uri, where), None)
        else:
            loaded = Buffer(_read_sidecar(path, uri, where, buffer.byteLength), None)
        length = buffer.byteLength
        if not isinstance(length, int) or length < 0 or length > len(loaded.data):
            raise ReadError(path, f"{where}.byteLength is {length!r} but {len(loaded.data)} bytes "
                            "are present", offset=loaded.file_offset)
        result.append(Buffer(loaded.data[:length], loaded.file_offset))
    return result


def decode_data_uri(path: Path, uri: str, where: str) -> bytes:
    header, _, payload = uri.partition(",")
    if not header.endswith(";base64"):
        raise ReadError(path, f"{where}.uri: only base64 data URIs are supported")
    try:
        return base64.b64decode(payload, validate=True)
    except (binascii.Error, ValueError):
        raise ReadError(path, f"{where}.uri: bad base64 data") from None


def sidecar_path(gltf_path: Path, uri: str) -> Path:
    """The file a glTF ``uri`` names: relative to the glTF's folder and inside its folder tree, a
    regular file. Raises ``ValueError`` saying why not (absolute paths, other URI schemes, ``..``
    out of the tree, links leading out of it, devices and FIFOs are refused)."""
    name = unquote(uri)
    if re.match(r"[A-Za-z][A-Za-z0-9+.-]*:", name) or name.startswith(("/", "\\")):
        raise ValueError(f"{uri[:80]!r} is not a path relative to the glTF file")
    try:
        folder = gltf_path.parent.resolve()
        target = (folder / name).resolve()
    except (OSError, RuntimeError) as error:  # RuntimeError: a symlink loop (Python before 3.13)
        raise ValueError(f"{uri[:80]!r} cannot be followed ({error})") from None
    if not target.is_relative_to(folder):
        raise ValueError(f"{uri[:80]!r} leads outside the glTF file's folder")
    try:
        regular_size(target)
    except ReadError as error:
        raise ValueError(f"{target.name}: {error.message}") from None
    return target


def _read_sidecar(path: Path, uri: str, where: str, length) -> bytes:
    """At most ``length`` bytes of the buffer file ``uri`` names (checked against its size first)."""
    try:
        target = sidecar_path(path, uri)
    except ValueError as error:
        raise ReadError(path, f"{where}.uri: {error}") from None
    size = regular_size(target)
    if not isinstance(length, int) or isinstance(length, bool) or not 0 <= length <= size:
        raise ReadError(path, f"{where}.byteLength is {length!r} but {size} bytes are present in "
                        f"{target.name}")
    try:
        with open(target, "rb") as handle:
            return handle.read(length)
    except OSError as error:
        raise ReadError(path, f"{where}.uri: cannot read {target.name}: {error.strerror or error}") from None
