#version 330 core
// Resolves a multisampled picture into a single-sample one: each pixel the mean of its SAMPLES
// samples, the picture glBlitFramebuffer's resolve gives. One triangle covers the framebuffer.

#if defined VERTEX_SHADER

void main() {
    gl_Position = vec4(vec2(gl_VertexID & 1, gl_VertexID >> 1) * 4.0 - 1.0, 0.0, 1.0);
}

#endif

#if defined FRAGMENT_SHADER

uniform sampler2DMS picture;

out vec4 f_color;

void main() {
    ivec2 texel = ivec2(gl_FragCoord.xy);
    vec4 sum = vec4(0.0);
    for (int i = 0; i < SAMPLES; ++i) {
        sum += texelFetch(picture, texel, i);
    }
    f_color = sum / float(SAMPLES);
}

#endif
