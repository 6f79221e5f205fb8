#version 330 core
// Fast approximate anti-aliasing (after Timothy Lottes' FXAA, its small "console" form): a picture
// drawn with one sample per pixel is smoothed along the edges its luma shows, at the cost of one
// full-screen pass instead of drawing every pixel four times (ImageTargets, antialias "fxaa").
// The picture holds sRGB-encoded, premultiplied colours; all four channels are filtered alike.

#if defined VERTEX_SHADER

void main() {
    gl_Position = vec4(vec2(gl_VertexID & 1, gl_VertexID >> 1) * 4.0 - 1.0, 0.0, 1.0);
}

#endif

#if defined FRAGMENT_SHADER

uniform sampler2D picture;
// The picture's last texel (width - 1, height - 1) and one texel's size in texture coordinates, set
// once: asking textureSize for them in every pixel costs a software rasteriser dearly.
uniform ivec2 last;
uniform vec2 pixel;

out vec4 f_color;

// Below this luma contrast (with the local luma's share) an edge is left alone.
const float REDUCE_MIN = 1.0 / 128.0;
const float REDUCE_SHARE = 1.0 / 8.0;
// The longest blur along an edge, in pixels.
const float SPAN_MAX = 8.0;
// Pixels whose neighbourhood's luma spans less than this (or this share of its brightest) are not
// on an edge and keep their colour: most of a thumbnail, which then costs five fetches, not nine.
const float EDGE_MIN = 1.0 / 32.0;
const float EDGE_SHARE = 1.0 / 8.0;

float luma(vec4 colour) {
    return dot(colour.rgb, vec3(0.299, 0.587, 0.114));
}

void main() {
    ivec2 texel = ivec2(gl_FragCoord.xy);
    // Whole texels, fetched unfiltered (a software rasteriser's filtered fetch costs several times
    // as much); the picture's sides are clamped as its sampler clamps them.
    float north_west = luma(texelFetch(picture, clamp(texel + ivec2(-1, 1), ivec2(0), last), 0));
    float north_east = luma(texelFetch(picture, clamp(texel + ivec2(1, 1), ivec2(0), last), 0));
    float south_west = luma(texelFetch(picture, clamp(texel + ivec2(-1, -1), ivec2(0), last), 0));
    float south_east = luma(texelFetch(picture, clamp(texel + ivec2(1, -1), ivec2(0), last), 0));
    vec4 centre = texelFetch(picture, texel, 0);
    float middle = luma(centre);
    float lowest = min(middle, min(min(north_west, north_east), min(south_west, south_east)));
    float highest = max(middle, max(max(north_west, north_east), max(south_west, south_east)));
    if (highest - lowest < max(EDGE_MIN, highest * EDGE_SHARE)) {
        f_color = centre;
        return;
    }
    vec2 uv = gl_FragCoord.xy * pixel;
    vec2 along = vec2(-((north_west + north_east) - (south_west + south_east)),
                      (north_west + south_west) - (north_east + south_east));
    float reduce = max((north_west + north_east + south_west + south_east) * 0.25 * REDUCE_SHARE, REDUCE_MIN);
    float scale = 1.0 / (min(abs(along.x), abs(along.y)) + reduce);
    along = clamp(along * scale, -SPAN_MAX, SPAN_MAX) * pixel;
    f_color = 0.5 * (texture(picture, uv + along * (1.0 / 3.0 - 0.5))
                     + texture(picture, uv + along * (2.0 / 3.0 - 0.5)));
}

#endif
