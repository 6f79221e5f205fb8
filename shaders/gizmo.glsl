#version 330 core
// Editor gizmos (ragdoll boxes, joint frames, limit arcs and cones): world-space lines and
// translucent triangles with a colour per vertex. Colours are display (sRGB) values with straight
// alpha; the output is premultiplied, as the renderer's blending expects.

uniform mat4 view;
uniform mat4 projection;

#if defined VERTEX_SHADER

uniform vec2 depth_layer;   // (scale, offset) on clip-space z: the renderer's overlay layer

in vec3 in_position;
in vec4 in_color;

out vec4 v_color;

void main() {
    gl_Position = projection * view * vec4(in_position, 1.0);
    gl_Position.z = gl_Position.z * depth_layer.x + gl_Position.w * depth_layer.y;
    v_color = in_color;
}

#endif

#if defined FRAGMENT_SHADER

in vec4 v_color;

out vec4 f_color;

void main() {
    f_color = vec4(v_color.rgb * v_color.a, v_color.a);
}

#endif
