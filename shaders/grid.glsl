#version 330 core
// The ground grid: one quad in the floor plane, lines drawn procedurally with screen-space
// anti-aliasing, fading out towards the quad's edge. Writes premultiplied alpha.

uniform mat4 view;
uniform mat4 projection;
uniform vec3 origin;        // centre of the quad, on the floor
uniform vec3 axis_u;        // unit world axes spanning the floor plane
uniform vec3 axis_v;
uniform float half_size;    // half the quad's side, world units

#if defined VERTEX_SHADER

uniform vec2 depth_layer;

out vec2 v_plane;   // world coordinates along axis_u, axis_v
out vec2 v_local;   // -1..1 across the quad

void main() {
    v_local = vec2(gl_VertexID & 1, gl_VertexID >> 1) * 2.0 - 1.0;
    vec3 world = origin + (v_local.x * axis_u + v_local.y * axis_v) * half_size;
    v_plane = vec2(dot(world, axis_u), dot(world, axis_v));
    gl_Position = projection * view * vec4(world, 1.0);
    gl_Position.z = gl_Position.z * depth_layer.x + gl_Position.w * depth_layer.y;
}

#endif

#if defined FRAGMENT_SHADER

in vec2 v_plane;
in vec2 v_local;

uniform float cell;         // minor line spacing, world units; major lines every 10 cells
uniform vec3 line_color;    // display (sRGB) colours
uniform vec3 fill_color;
uniform vec3 u_axis_color;
uniform vec3 v_axis_color;

out vec4 f_color;

float line_coverage(vec2 coordinates, float spacing, float width) {
    vec2 scaled = coordinates / spacing;
    vec2 distance_px = abs(fract(scaled - 0.5) - 0.5) / fwidth(scaled);
    return 1.0 - min(min(distance_px.x, distance_px.y) / width, 1.0);
}

void main() {
    float minor = line_coverage(v_plane, cell, 1.0) * 0.35;
    float major = line_coverage(v_plane, cell * 10.0, 1.5) * 0.8;
    vec2 axis_px = abs(v_plane) / fwidth(v_plane);
    float on_u_axis = 1.0 - min(axis_px.y / 1.5, 1.0);
    float on_v_axis = 1.0 - min(axis_px.x / 1.5, 1.0);
    float lines = max(minor, major);
    vec3 rgb = mix(fill_color, line_color, lines);
    rgb = mix(rgb, u_axis_color, on_u_axis);
    rgb = mix(rgb, v_axis_color, on_v_axis);
    float alpha = max(max(0.22, lines), max(on_u_axis, on_v_axis));
    alpha *= 1.0 - smoothstep(0.45, 1.0, length(v_local));
    f_color = vec4(rgb * alpha, alpha);
}

#endif
