"""What a bone's name says: its side, its role, a key rigs agree on, its twin's name on the other side.

One vocabulary read three ways. Retargeting (``name_key``) pairs bone with bone, so it unifies only
the words different rigs give the same bone (``ROLE_WORDS``, e.g. Mixamo's ``Leg``, Biped's ``Calf``
and NWN's ``shin`` are all the shin). The automatic ragdoll (``bone_role``) takes the shallowest bone
of each body part, so it also reads the words that name a joint or region of a part
(``REGION_WORDS``: a ``knee`` bone, a ``wrist``), and it has no clavicle or toe parts (toes are
helpers to it, ``HELPER_WORDS``); for a rig that is not a humanoid's it reads coarser kinds
(``body_kind``: tails, wings, upper and lower limbs). Symmetric editing (``mirror_name``,
``side_keys``) reads the sides as the ragdoll does (``SIDE_WORDS``); ``name_key`` also reads Biped's
short ``Lft``/``Rgt``.

Motion capture skeletons (BVH, MotionBuilder) come in two namings. CMU's conversions use Mixamo's
part words already (``LeftUpLeg``, ``LeftLeg``, ``Spine1``, ``LeftForeArm``); their extra bones
(``LHipJoint``, ``LowerBack``, ``Neck1``, ``LeftFingerBase``) pair with nothing. Older takes name
each bone by the joint at its head (``LeftHip``, ``LeftKnee``, ``LeftElbow``, ``LeftWrist``): only
in that exact form, a side word and a joint, ``name_key`` reads the joint as the part below it
(``JOINT_PARTS``); a ``knee_l`` helper of another rig stays a knee.
"""

from __future__ import annotations

import re

#: Each body part and the words different rigs name its bone by, the part's own name first.
ROLE_WORDS = {
    "pelvis": ("pelvis", "hips", "hip"),
    "spine": ("spine", "chest", "torso"),
    "neck": ("neck",),
    "head": ("head",),
    "clavicle": ("clavicle", "shoulder", "collar"),
    "upperarm": ("upperarm", "arm", "bicep"),
    "forearm": ("forearm", "lowerarm"),
    "hand": ("hand",),
    "thigh": ("thigh", "upleg", "upperleg"),
    "shin": ("shin", "calf", "leg", "lowerleg"),
    "foot": ("foot", "ankle"),
    "toe": ("toe", "toebase", "toes"),
}
#: Words for a joint or region of a part, or its anatomy, that the ragdoll reads as the part.
REGION_WORDS = {
    "spine": ("upperchest", "abdomen", "waist", "ribcage", "lowerback", "upperback"),
    "upperarm": ("uparm", "humerus"),
    "forearm": ("elbow", "lowarm"),
    "hand": ("wrist",),
    "thigh": ("femur",),
    "shin": ("knee", "lowleg"),
}
#: The part below each joint, for names of the form Left|Right + joint (``LeftKnee``: the shin).
JOINT_PARTS = {"hip": "thigh", "knee": "shin", "elbow": "forearm", "wrist": "hand"}
_NAMED_BY_JOINT = re.compile(rf"^(left|right)({'|'.join(JOINT_PARTS)})$")
#: The parts the ragdoll builds on (``bone_role``).
RAGDOLL_ROLES = ("pelvis", "spine", "neck", "head", "upperarm", "forearm", "hand", "thigh", "shin", "foot")
#: Parts that come in pairs: NWN writes their side as a bare leading letter (``lthigh_g``).
PAIRED_ROLES = {"thigh", "shin", "foot", "toe", "upperarm", "forearm", "hand", "clavicle", "eye"}
#: The parts of the body's middle: a side in their name is noise (a hip with a side is a thigh).
MIDDLE_ROLES = ("pelvis", "spine", "neck", "head")

#: A side written as a word of its own ("Bip01 L Thigh", "thigh_l", "LeftArm" split into words).
SIDE_WORDS = {"l": "l", "left": "l", "r": "r", "right": "r"}
#: The limbs NWN fuses the side letter into: ``lbicep_g``, ``rshin_g``.
FUSED_LIMBS = "bicep|forearm|hand|thigh|shin|foot|uparm|arm|leg"
#: A lower-case name word that is a side letter fused to a limb word ("lthigh").
FUSED_SIDE = re.compile(rf"^([lr])({FUSED_LIMBS})$")
#: Words that carry no meaning of their own in rigs' names.
NOISE_WORDS = {"bip", "bip01", "biped", "def", "g", "jnt", "joint", "bone", "mixamorig", "sk", "b"}
#: Beginnings of the words of helper bones: no body part of their own.
HELPER_WORDS = ("nub", "end", "twist", "roll", "ik", "pole", "target", "toe", "finger", "thumb", "index",
                "middle", "ring", "pinky", "eye", "jaw", "helper", "dummy", "ctrl", "tip")

#: Beginnings of the words of bones that carry props and accessories, not body: the ragdoll gives them
#: no part of their own and fits no part over their vertices (they follow the part above them).
PROP_WORDS = ("weapon", "sword", "axe", "shield", "bow", "arrow", "quiver", "gun", "rifle", "pistol", "spear",
              "staff", "torch", "prop", "hair", "cape", "cloak", "skirt", "bag", "backpack", "hat", "helmet",
              "accessory", "scabbard", "sheath", "holster")

#: What a bone's name says it is in a rig that is not a humanoid's (quadrupeds, tails, wings): the
#: first kind whose pattern is in its words run together (``body_kind``).
BODY_KINDS = (
    ("tail", re.compile(r"tail")),
    ("wing", re.compile(r"wing")),
    ("neck", re.compile(r"neck|head|skull")),
    ("spine", re.compile(r"spine|chest|torso|pelvis|hip|back|waist")),
    ("lower_limb", re.compile(r"forearm|lowerarm|calf|shin|lowerleg|leg0*[2-9]|foot|paw|hand|hoof")),
    ("upper_limb", re.compile(r"upperarm|thigh|upperleg|upleg|leg|arm|shoulder")),
)

#: Name prefixes of common rigs left out before names are compared (Bip01, Mixamo, C3DE, NWN).
_PREFIXES = re.compile(r"^(bip0?1|biped|mixamorig\d*|armature|def|c3de|rootdummy)[\s_:.|-]*")
#: Biped's short sides, which only ``name_key`` reads besides ``SIDE_WORDS``.
SHORT_SIDE_WORDS = {"lft": "l", "rgt": "r"}


def _side_pattern(side: str) -> re.Pattern:
    """A side (``SIDE_WORDS``, ``SHORT_SIDE_WORDS``) written as a word or a letter of its own in a
    lower-case name, or its full word at either end."""
    spellings = [word for word, meaning in {**SIDE_WORDS, **SHORT_SIDE_WORDS}.items() if meaning == side]
    full = max(spellings, key=len)
    return re.compile(rf"(^|[\s_.-])({'|'.join(spellings)})([\s_.-]|$)|^{full}|{full}$")


_LEFT, _RIGHT = _side_pattern("l"), _side_pattern("r")
#: Names that only number a bone.
_GENERIC = re.compile(r"(bone|joint|node)[\s_.-]*\d*")

_SIDE_WORD = re.compile(r"Left|Right|left|right|LEFT|RIGHT")
_SIDE_LETTER = re.compile(r"(?<![A-Za-z])[LlRr](?![A-Za-z])")
_FUSED_PREFIX = re.compile(rf"^[lr](?=(?:{FUSED_LIMBS})(?![a-z]))")
_SWAP = {"Left": "Right", "Right": "Left", "left": "right", "right": "left", "LEFT": "RIGHT", "RIGHT": "LEFT",
         "L": "R", "R": "L", "l": "r", "r": "l"}


def word_roles(*tables: dict[str, tuple[str, ...]], roles=None) -> dict[str, str]:
    """Word → role over ``tables`` (role → words), keeping only ``roles`` when given."""
    return {word: role for table in tables for role, spelled in table.items()
            if roles is None or role in roles for word in spelled}


#: Retargeting's reading: every part, the words of its bone only.
KEY_WORDS = word_roles(ROLE_WORDS)
#: The ragdoll's reading: its parts, with the words of their joints and regions.
RAGDOLL_WORDS = word_roles(ROLE_WORDS, REGION_WORDS, roles=RAGDOLL_ROLES)


def words(name: str, drop_number: bool = False) -> list[str]:
    """The lower-case words of a bone name, its namespace (``mixamorig:``) left out and camel case
    split (``LeftUpLeg`` → left, up, leg); with ``drop_number``, a trailing number left out too."""
    text = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", re.sub(r"^.*[:|]", "", name)).lower()
    if drop_number:
        text = re.sub(r"[_ ]*\d+$", "", text)
    return [word for word in re.split(r"[^a-z0-9]+", text) if word]


def is_helper(name: str) -> bool:
    """Whether a bone's name says it is a helper (``HELPER_WORDS``: nubs, twists, fingers, toes)."""
    return any(word.startswith(helper) for word in words(name) for helper in HELPER_WORDS)


def is_prop(name: str) -> bool:
    """Whether a bone's name says it carries a prop or an accessory (``PROP_WORDS``: a sword, a cape,
    hair cards), not a body part."""
    return any(word.startswith(prop) for word in words(name) for prop in PROP_WORDS)


def exact_key(name: str) -> str:
    """A bone's name compared as is (lower case, trimmed); empty for a numbered name such as C3DE's
    ``bone 7``, which names no part and must not pair by name."""
    key = name.strip().lower()
    return "" if _GENERIC.fullmatch(key) else key


def name_key(name: str) -> str:
    """A bone's name reduced to what rigs agree on: lower case, no rig prefix or NWN ``_g``
    suffix, the side as a trailing ``.l``/``.r``, synonyms unified (``KEY_WORDS``:
    ``mixamorig:LeftUpLeg`` and ``Bip01 L Thigh`` both become ``thigh.l``). Empty for a name that
    says nothing of the part, such as the ``bone 7`` given to C3DE's unnamed bones."""
    key = name.strip().lower()
    if _GENERIC.fullmatch(key):
        return ""
    key = _PREFIXES.sub("", key)
    key = re.sub(r"_g$", "", key)
    by_joint = _NAMED_BY_JOINT.match(key)
    if by_joint:
        return f"{JOINT_PARTS[by_joint.group(2)]}.{by_joint.group(1)[0]}"
    side = ".l" if _LEFT.search(key) else ".r" if _RIGHT.search(key) else ""
    if side:
        key = (_LEFT if side == ".l" else _RIGHT).sub(" ", key, count=1)
    key = re.sub(r"[\s_.:|-]+", "", key)
    key = KEY_WORDS.get(key, key)
    if not side and key[:1] in ("l", "r") and KEY_WORDS.get(key[1:], key[1:]) in PAIRED_ROLES:
        side, key = "." + key[0], KEY_WORDS.get(key[1:], key[1:])
    return key + side


def bone_role(name: str) -> tuple[str | None, str | None]:
    """(role, side) a bone name suggests to the ragdoll (``RAGDOLL_WORDS``), e.g. ('thigh', 'l') for
    ``Bip01 L Thigh``; (None, None) for helper bones (nubs, twists, fingers) and names that say nothing."""
    tokens = words(name)
    if any(token.startswith(helper) for token in tokens for helper in HELPER_WORDS):
        return None, None
    side, kept = None, []
    for token in tokens:
        fused = FUSED_SIDE.match(token)
        if token in SIDE_WORDS:
            side = SIDE_WORDS[token]
        elif fused and len(tokens) <= 2:
            side = fused.group(1)
            kept.append(fused.group(2))
        elif token not in NOISE_WORDS:
            kept.append(token)
    role = RAGDOLL_WORDS.get(re.sub(r"\d+$", "", "".join(kept)))
    if role == "pelvis" and side:
        role = "thigh"
    if role in MIDDLE_ROLES:
        side = None
    elif side is None:
        role = None
    return role, side


def body_kind(name: str) -> str | None:
    """What a bone's name says it is when the rig is not a humanoid's (``BODY_KINDS``: 'tail', 'wing',
    'neck', 'spine', 'lower_limb', 'upper_limb'), or None: the automatic ragdoll limits its joints by it."""
    key = "".join(words(name))
    return next((kind for kind, pattern in BODY_KINDS if pattern.search(key)), None)


def mirror_name(name: str) -> str | None:
    """The name of the other side's twin (``thigh_l`` → ``thigh_r``, ``Bip01 L Thigh`` → ``Bip01 R
    Thigh``, ``mixamorig:LeftArm`` → ``mixamorig:RightArm``, NWN ``lthigh_g`` → ``rthigh_g``), or None."""
    for pattern in (_SIDE_WORD, _SIDE_LETTER, _FUSED_PREFIX):
        swapped = pattern.sub(lambda match: _SWAP[match.group(0)], name)
        if swapped != name:
            return swapped
    return None


def side_keys(name: str) -> list[tuple[str, str]]:
    """(side, the name without it) for each way ``name`` may say a side: a word of its own (``Left``,
    ``R``), else a leading l or r on a word (``Lbicep``); lower case, a trailing number dropped."""
    found = words(name, drop_number=True)
    sided = [i for i, word in enumerate(found) if word in SIDE_WORDS]
    if sided:
        i = sided[0]
        return [(SIDE_WORDS[found[i]], " ".join(found[:i] + ["*"] + found[i + 1:]))]
    return [(word[0], " ".join(found[:i] + ["*" + word[1:]] + found[i + 1:]))
            for i, word in enumerate(found) if len(word) > 2 and word[0] in "lr"]


def numbered_duplicates(names: list[str]) -> list[str]:
    """Names made unique with a ``#n`` suffix where a file repeats one (FBX and BVH allow it): the
    second ``Hips`` is ``Hips#2``."""
    seen: dict[str, int] = {}
    result = []
    for name in names:
        seen[name] = seen.get(name, 0) + 1
        result.append(name if seen[name] == 1 else f"{name}#{seen[name]}")
    return result
