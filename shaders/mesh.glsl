#version 330 core
// Meshes, skeleton octahedra, wireframe and point clouds: GPU skinning (linear or dual quaternion)
// from a bone texture, then lit shading, a weight heat map, a highlight, a flat colour or a mesh id.
// The base colour is a linear factor times the sRGB base-colour texture (decoded to linear by the
// sampler) times the linear vertex colour (glTF's COLOR_0); the result is lit in linear space and encoded to sRGB on output.
// Compiled a second time without the fragment stage to capture v_world and v_normal by
// transform feedback (tests and the normals overlay).

uniform mat4 view;
uniform mat4 projection;

#if defined VERTEX_SHADER

in vec3 in_position;
in vec3 in_normal;
in ivec4 in_joints;
in vec4 in_weights;
in vec2 in_uv;               // glTF convention: (0, 0) is the image's top-left corner
in vec4 in_color;            // linear RGBA vertex colour (ones when the mesh has none)

// One row per bone, five RGBA32F texels: the top three rows of the skinning matrix S_b,
// then its real and dual quaternions (x, y, z, w).
uniform sampler2D bones;
uniform int skinning;       // 0: positions as given, 1: linear blend, 2: dual quaternions
uniform int heat_bone;      // bone whose weight goes to v_heat; -1 for none
uniform vec2 depth_layer;   // clip z' = z * x + w * y: splits the depth range into layers
uniform float point_radius; // world units, for point clouds
uniform float viewport_height;
uniform mat3 uv_transform;  // KHR_texture_transform, applied to in_uv

// Morph targets, applied before skinning: target m's delta for vertex v is texel m·V + v of
// morph_deltas (positions), then (M + m)·V + v (normals), rows wrapped at the texture's width;
// morph_weights holds each target's weight less its default (already in in_position), row-wrapped.
uniform sampler2D morph_deltas;
uniform sampler2D morph_weights;
uniform int morph_count;    // M; 0: no morphing
uniform int morph_vertices; // V

out vec3 v_world;
out vec3 v_normal;
out float v_heat;
out vec2 v_uv;
out vec4 v_color;

mat3x4 bone_rows(int bone) {
    return mat3x4(texelFetch(bones, ivec2(0, bone), 0),
                  texelFetch(bones, ivec2(1, bone), 0),
                  texelFetch(bones, ivec2(2, bone), 0));
}

ivec2 wrapped(int index, ivec2 size) {
    return ivec2(index % size.x, index / size.x);
}

void apply_morphs(inout vec3 position, inout vec3 normal) {
    ivec2 delta_size = textureSize(morph_deltas, 0);
    ivec2 weight_size = textureSize(morph_weights, 0);
    for (int target = 0; target < morph_count; ++target) {
        float weight = texelFetch(morph_weights, wrapped(target, weight_size), 0).r;
        if (weight == 0.0) continue;
        int at = target * morph_vertices + gl_VertexID;
        position += weight * texelFetch(morph_deltas, wrapped(at, delta_size), 0).xyz;
        normal += weight * texelFetch(morph_deltas, wrapped(at + morph_count * morph_vertices, delta_size), 0).xyz;
    }
}

void linear_blend(inout vec3 position, inout vec3 normal) {
    mat3x4 rows = in_weights.x * bone_rows(in_joints.x) + in_weights.y * bone_rows(in_joints.y)
                + in_weights.z * bone_rows(in_joints.z) + in_weights.w * bone_rows(in_joints.w);
    position = vec4(position, 1.0) * rows;
    normal = vec4(normal, 0.0) * rows;
}

void dual_quaternion_blend(inout vec3 position, inout vec3 normal) {
    vec4 first = texelFetch(bones, ivec2(3, in_joints.x), 0);
    vec4 real = vec4(0.0);
    vec4 dual = vec4(0.0);
    for (int lane = 0; lane < 4; ++lane) {
        vec4 lane_real = texelFetch(bones, ivec2(3, in_joints[lane]), 0);
        vec4 lane_dual = texelFetch(bones, ivec2(4, in_joints[lane]), 0);
        // Antipodal quaternions are aligned with the first lane, as pose.skin_mesh does.
        float weight = in_weights[lane] * (dot(lane_real, first) < 0.0 ? -1.0 : 1.0);
        real += weight * lane_real;
        dual += weight * lane_dual;
    }
    float norm = length(real);
    norm = norm == 0.0 ? 1.0 : norm;
    real /= norm;
    dual /= norm;
    vec3 offset = 2.0 * (real.w * dual.xyz - dual.w * real.xyz + cross(real.xyz, dual.xyz));
    position = position + 2.0 * cross(real.xyz, cross(real.xyz, position) + real.w * position) + offset;
    normal = normal + 2.0 * cross(real.xyz, cross(real.xyz, normal) + real.w * normal);
}

void main() {
    v_world = in_position;
    v_normal = in_normal;
    apply_morphs(v_world, v_normal);
    // Weightless vertices are rigid: they keep their bind position.
    if (dot(in_weights, vec4(1.0)) > 0.0) {
        if (skinning == 1) {
            linear_blend(v_world, v_normal);
        } else if (skinning == 2) {
            dual_quaternion_blend(v_world, v_normal);
        }
    }
    v_heat = dot(vec4(equal(in_joints, ivec4(heat_bone))), in_weights);
    v_uv = (uv_transform * vec3(in_uv, 1.0)).xy;
    v_color = in_color;
    gl_Position = projection * view * vec4(v_world, 1.0);
    gl_PointSize = max(2.0, point_radius * projection[1][1] * viewport_height / gl_Position.w);
    gl_Position.z = gl_Position.z * depth_layer.x + gl_Position.w * depth_layer.y;
}

#endif

#if defined FRAGMENT_SHADER

in vec3 v_world;
in vec3 v_normal;
in float v_heat;
in vec2 v_uv;
in vec4 v_color;

uniform int mode;                // 0: lit colour, 1: weight heat map, 2: flat colour, 3: mesh id
uniform vec4 color;              // linear RGB and alpha (mode 3: the id, bytes as written)
uniform bool textured;           // multiply the colour by base_texture at v_uv
uniform bool vertex_colors;      // multiply the colour by v_color
uniform sampler2D base_texture;  // sRGB RGBA, mipmapped; repeat or clamp set on the texture
uniform bvec2 mirror;            // mirrored repeat along s / t, done here (moderngl has no mode for it)
uniform int alpha_mode;          // 0: opaque, 1: mask (cut below alpha_cutoff), 2: blend
uniform float alpha_cutoff;
uniform bool unlit;              // mode 0: the colour as it is, without lighting (KHR_materials_unlit)
uniform vec3 emissive;           // mode 0: linear light given off, added after lighting
uniform bool emissive_textured;  // multiply the emission by emissive_texture at v_uv
uniform sampler2D emissive_texture;  // sRGB RGBA, mipmapped
uniform vec3 highlight_color;    // mixed in by v_heat in mode 0 (the selected bone)
uniform bool sphere_points;      // shade each point as a little sphere
uniform bool derivative_normals; // faceted normals from screen derivatives (vertex-animated clips)
uniform vec3 eye;
uniform vec3 up;

out vec4 f_color;

vec3 heat_ramp(float t) {
    t = clamp(t, 0.0, 1.0);
    return clamp(vec3(1.5 - abs(4.0 * t - 3.0), 1.5 - abs(4.0 * t - 2.0), 1.5 - abs(4.0 * t - 1.0)),
                 0.0, 1.0);
}

vec3 shaded_normal(vec3 to_eye) {
    vec3 normal;
    if (sphere_points) {
        vec2 offset = gl_PointCoord * 2.0 - 1.0;
        float reach = dot(offset, offset);
        if (reach > 1.0) discard;
        vec3 facing = vec3(offset.x, -offset.y, sqrt(1.0 - reach));
        normal = transpose(mat3(view)) * facing;
    } else if (derivative_normals) {
        normal = cross(dFdx(v_world), dFdy(v_world));
    } else {
        normal = v_normal;
    }
    normal = normalize(normal);
    // Legacy meshes often mix windings: light both sides.
    return dot(normal, to_eye) < 0.0 ? -normal : normal;
}

vec4 base_color() {
    vec4 factor = vertex_colors ? color * v_color : color;
    if (!textured) return factor;
    // Mirrored coordinates fold into 0..1; the unfolded ones keep the mip level continuous.
    vec2 folded = mix(v_uv, 1.0 - abs(mod(v_uv, 2.0) - 1.0), vec2(mirror));
    return factor * textureGrad(base_texture, folded, dFdx(v_uv), dFdy(v_uv));
}

vec3 emission() {
    if (!emissive_textured) return emissive;
    vec2 folded = mix(v_uv, 1.0 - abs(mod(v_uv, 2.0) - 1.0), vec2(mirror));
    return emissive * textureGrad(emissive_texture, folded, dFdx(v_uv), dFdy(v_uv)).rgb;
}

vec3 srgb_encode(vec3 linear) {
    linear = clamp(linear, 0.0, 1.0);
    return mix(linear * 12.92, 1.055 * pow(linear, vec3(1.0 / 2.4)) - 0.055, step(0.0031308, linear));
}

vec3 lit(vec3 albedo, vec3 normal, vec3 to_eye) {
    vec3 sky = vec3(0.60, 0.64, 0.70);
    vec3 ground = vec3(0.26, 0.24, 0.22);
    vec3 ambient = mix(ground, sky, 0.5 + 0.5 * dot(normal, up));
    vec3 key_direction = normalize(up * 1.2 + to_eye * 0.6 + cross(up, to_eye) * 0.5);
    float key = max(dot(normal, key_direction), 0.0);
    float head = max(dot(normal, to_eye), 0.0);
    vec3 half_vector = normalize(key_direction + to_eye);
    float specular = pow(max(dot(normal, half_vector), 0.0), 48.0) * 0.25;
    vec3 light = ambient * 0.55 + vec3(1.0, 0.97, 0.92) * key * 0.75 + vec3(0.35) * head;
    return albedo * light + specular;
}

void main() {
    if (mode == 2) {
        f_color = vec4(srgb_encode(color.rgb) * color.a, color.a);
        return;
    }
    vec4 base = base_color();
    if (alpha_mode == 1 && base.a < alpha_cutoff) discard;
    if (mode == 3) {
        f_color = color;
        return;
    }
    float alpha = alpha_mode == 2 ? clamp(base.a, 0.0, 1.0) : 1.0;
    vec3 to_eye = normalize(eye - v_world);
    vec3 normal = shaded_normal(to_eye);
    vec3 albedo = mode == 1 ? heat_ramp(v_heat) : mix(base.rgb, highlight_color, clamp(v_heat, 0.0, 1.0));
    vec3 linear = unlit && mode == 0 ? albedo : lit(albedo, normal, to_eye);
    if (mode == 0) linear += emission();
    // Premultiplied, as the blending and the transparent captures expect.
    f_color = vec4(srgb_encode(linear) * alpha, alpha);
}

#endif
