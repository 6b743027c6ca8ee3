//go:build ode && cgo

// A SimSpark-like ODE scene: robots (articulated bodies in their own hash
// space), a ball and the field plane, stepped one cycle per call. The Go
// side hands in plain arrays and reads plain arrays back; nothing here calls
// into Go.
#ifndef PS_SCENE_H
#define PS_SCENE_H

// Surface classes (contact handlers).
enum { PS_SURF_NONE = -1, PS_SURF_PART = 0, PS_SURF_FOOT = 1, PS_SURF_FIELD = 2, PS_SURF_BALL = 3, PS_SURF_STATIC = 4, PS_NSURF = 5 };

// Shapes.
enum { PS_SHAPE_BOX = 0, PS_SHAPE_SPHERE = 1, PS_SHAPE_CAPSULE = 2 };

// One mixed contact surface (dSurfaceParameters without mu2 and motion).
typedef struct {
	int mode;
	double mu, bounce, bounce_vel, soft_erp, soft_cfm, slip1, slip2;
} ps_surface;

typedef struct {
	double gravity, cfm, erp, surface_layer, dt;
	int auto_disable;
	int max_contacts; // per geom pair
	int threads;      // > 1: step separate islands on a pool of this many threads
	ps_surface surf[PS_NSURF][PS_NSURF];
	double ball_radius, ball_mass, ball_lin_drag, ball_ang_drag, ball_decel_factor, ball_decel_base;
} ps_params;

typedef struct {
	int shape;       // mass shape (and the collider's, if any)
	double size[3];  // box: sides; sphere: radius; capsule: radius, cylinder length
	double mass;
	double pos[3];   // centre relative to the torso centre in the zero pose
	int surface;     // PS_SURF_*, or PS_SURF_NONE: no collider
	int frp;         // -1, or the FRP sensor index (0 right foot, 1 left foot)
	double lin_drag, ang_drag;
} ps_body_spec;

typedef struct {
	int child, parent;  // body indices; body1 = child, body2 = parent
	double anchor[3];   // relative to the torso centre in the zero pose
	double axis[3];
	double lo, hi;      // radians
	double fmax, cfm, stop_cfm, stop_erp, fudge, bounce;
	double max_speed;
} ps_joint_spec;

// Per robot output, in doubles, after each step.
#define PS_MAX_JOINTS 32
#define PS_MAX_BODIES 32
enum {
	PS_OUT_GYR = 0,      // 3: deg/s, torso frame
	PS_OUT_ACC = 3,      // 3: m/s^2, torso frame
	PS_OUT_FRP = 6,      // 2 x (touch, c[3], f[3]): foot frame
	PS_OUT_TORSO_R = 20, // 9: row-major rotation of the torso
	PS_OUT_HEAD_R = 29,  // 9: of the head body
	PS_OUT_LINVEL = 38,  // 3: torso, world
	PS_OUT_ANGVEL = 41,  // 3: torso, world
	PS_OUT_CONTACTS = 44,// 1: contact points this step
	PS_OUT_ENABLED = 45, // 1: torso enabled (not auto-disabled)
	PS_OUT_ANGLES = 46,  // njoints: radians
	// then nbodies x 3 positions
};

typedef struct ps_scene ps_scene;

ps_scene *ps_new(const ps_params *p);
void ps_free(ps_scene *s);
// ps_add_robot builds a robot; head is the index of the camera body, torso
// of the trunk. Returns its slot, or -1.
int ps_add_robot(ps_scene *s, const ps_body_spec *b, int nb, const ps_joint_spec *j, int nj, int torso, int head,
                 const double pos[3], const double rot[9]);
void ps_remove_robot(ps_scene *s, int id);
// ps_place moves robot id rigidly so that its torso is at pos with rotation
// rot, lifted so that its lowest point is `clear` above the ground if clear
// >= 0; velocities are zeroed and the bodies woken.
void ps_place(ps_scene *s, int id, const double pos[3], const double rot[9], double clear);
void ps_set_ball(ps_scene *s, const double pos[3], const double vel[3]);
// ps_add_static adds a fixed box (no body) with the given sides, centre and
// row-major rotation; it collides with robots and the ball as surface
// PS_SURF_STATIC.
void ps_add_static(ps_scene *s, const double size[3], const double pos[3], const double rot[9]);
// ps_step runs one cycle: vel holds njoints motor velocities per robot slot
// in slot order (NaN: keep the last); out receives stride doubles per slot,
// then 6 for the ball (position, velocity).
void ps_step(ps_scene *s, const double *vel, double *out, int stride);
int ps_slots(ps_scene *s);
long ps_stats_contacts(ps_scene *s);

#endif
