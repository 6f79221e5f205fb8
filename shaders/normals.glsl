#version 330 core
// Vertex normals as short lines, from the skinned positions and normals captured by mesh.glsl.

uniform mat4 view;
uniform mat4 projection;

#if defined VERTEX_SHADER

in vec3 in_position;
in vec3 in_normal;

out vec3 g_normal;

void main() {
    gl_Position = vec4(in_position, 1.0);
    g_normal = in_normal;
}

#endif

#if defined GEOMETRY_SHADER

layout(points) in;
layout(line_strip, max_vertices = 2) out;

in vec3 g_normal[];

uniform float line_length;      // world units
uniform vec2 depth_layer;

void emit(vec3 world) {
    gl_Position = projection * view * vec4(world, 1.0);
    gl_Position.z = gl_Position.z * depth_layer.x + gl_Position.w * depth_layer.y;
    EmitVertex();
}

void main() {
    vec3 base = gl_in[0].gl_Position.xyz;
    float norm = dot(g_normal[0], g_normal[0]);
    vec3 direction = norm > 0.0 ? g_normal[0] * inversesqrt(norm) : vec3(0.0);
    emit(base);
    emit(base + direction * line_length);
    EndPrimitive();
}

#endif

#if defined FRAGMENT_SHADER

uniform vec4 color;         // premultiplied

out vec4 f_color;

void main() {
    f_color = color;
}

#endif
