//go:build ode && cgo

// The ODE scene behind package ode. Stepping follows SimSpark
// (spark/lib/oxygen/simulationserver, spark/plugin/odeimps): motor
// velocities set, then drag and the accelerometer (PrePhysicsUpdate), then
// collision into a contact joint group, dWorldStep, the group emptied and
// the senses read.
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <ode/ode.h>
#include "scene.h"

#define PS_MAX_FB 1024
#define PS_MAX_CONTACTS 8

typedef struct {
	int robot;   // slot, or -1 (field, ball)
	int surface; // PS_SURF_*
	int frp;     // -1 or foot index
} ginfo;

typedef struct {
	int used;
	dSpaceID space;
	int nb, nj, torso, head;
	dBodyID body[PS_MAX_BODIES];
	dGeomID geom[PS_MAX_BODIES];
	ginfo gi[PS_MAX_BODIES];
	double lin_drag[PS_MAX_BODIES], ang_drag[PS_MAX_BODIES];
	dJointID joint[PS_MAX_JOINTS];
	int child[PS_MAX_JOINTS];
	double max_speed[PS_MAX_JOINTS];
	double lastv[3];
	double acc[3];
	int contacts;
} robot;

struct ps_scene {
	ps_params p;
	dWorldID world;
	dSpaceID root;
	dJointGroupID group;
	dGeomID plane;
	ginfo plane_gi;
	dBodyID ball;
	dGeomID ball_geom;
	ginfo ball_gi;
	ginfo static_gi; // every fixed box's (ps_add_static)
	robot **robots; // each robot stays where it is: its geoms point into it
	int nrobots, cap;
	dJointFeedback fb[PS_MAX_FB]; // one per contact joint touching a foot
	int nfb;
	// one record per (foot, contact): which feedback, which side
	int rec_robot[PS_MAX_FB], rec_foot[PS_MAX_FB], rec_is1[PS_MAX_FB], rec_fb[PS_MAX_FB];
	double rec_pos[PS_MAX_FB][3];
	int nrec;
	long total_contacts;
	// The world's own threading implementation: ODE's default one is a
	// single process-wide object whose job list is not locked
	// (default_threading.cpp, threading_fake_sync.h), so worlds stepped on
	// different threads at once corrupt it. Self-threaded (jobs run in the
	// stepping thread) unless island stepping threads are asked for.
	dThreadingImplementationID impl;
	dThreadingThreadPoolID pool; // island stepping threads, or NULL
};

// ode_refs counts the live scenes: ODE is initialised with the first and
// closed with the last, under ode_mu (scenes are made and freed on any
// thread).
static int ode_refs;
static pthread_mutex_t ode_mu = PTHREAD_MUTEX_INITIALIZER;

static void ode_acquire(void) {
	pthread_mutex_lock(&ode_mu);
	if (ode_refs++ == 0) {
		dInitODE2(0);
	}
	pthread_mutex_unlock(&ode_mu);
}

static void ode_release(void) {
	pthread_mutex_lock(&ode_mu);
	if (--ode_refs == 0) {
		dCloseODE();
	}
	pthread_mutex_unlock(&ode_mu);
}

ps_scene *ps_new(const ps_params *p) {
	ode_acquire();
	dAllocateODEDataForThread(dAllocateMaskAll);
	ps_scene *s = calloc(1, sizeof(ps_scene));
	if (!s) {
		ode_release();
		return NULL;
	}
	s->p = *p;
	if (s->p.max_contacts <= 0 || s->p.max_contacts > PS_MAX_CONTACTS) {
		s->p.max_contacts = 4;
	}
	s->world = dWorldCreate();
	dWorldSetGravity(s->world, 0, 0, -p->gravity);
	dWorldSetCFM(s->world, p->cfm);
	dWorldSetERP(s->world, p->erp);
	dWorldSetContactSurfaceLayer(s->world, p->surface_layer);
	dWorldSetAutoDisableFlag(s->world, p->auto_disable);
	if (p->threads > 1) {
		s->impl = dThreadingAllocateMultiThreadedImplementation();
		s->pool = s->impl ? dThreadingAllocateThreadPool(p->threads, 0, dAllocateFlagBasicData, NULL) : NULL;
		if (s->pool) {
			dThreadingThreadPoolServeMultiThreadedImplementation(s->pool, s->impl);
			dWorldSetStepIslandsProcessingMaxThreadCount(s->world, p->threads);
		} else if (s->impl) {
			dThreadingFreeImplementation(s->impl);
			s->impl = NULL;
		}
	}
	if (!s->impl) {
		s->impl = dThreadingAllocateSelfThreadedImplementation();
	}
	if (!s->impl) {
		// Never fall back on the shared default: fail instead.
		dWorldDestroy(s->world);
		free(s);
		ode_release();
		return NULL;
	}
	dWorldSetStepThreadingImplementation(s->world, dThreadingImplementationGetFunctions(s->impl), s->impl);
	s->root = dHashSpaceCreate(0);
	s->group = dJointGroupCreate(0);
	s->plane = dCreatePlane(s->root, 0, 0, 1, 0);
	s->plane_gi = (ginfo){-1, PS_SURF_FIELD, -1};
	dGeomSetData(s->plane, &s->plane_gi);
	s->ball = dBodyCreate(s->world);
	dMass m;
	dMassSetSphereTotal(&m, p->ball_mass, p->ball_radius);
	dBodySetMass(s->ball, &m);
	dBodySetPosition(s->ball, 0, 0, p->ball_radius);
	s->ball_geom = dCreateSphere(s->root, p->ball_radius);
	dGeomSetBody(s->ball_geom, s->ball);
	s->ball_gi = (ginfo){-1, PS_SURF_BALL, -1};
	dGeomSetData(s->ball_geom, &s->ball_gi);
	s->static_gi = (ginfo){-1, PS_SURF_STATIC, -1};
	return s;
}

static void to_ode(const double rot[9], dMatrix3 R);

void ps_add_static(ps_scene *s, const double size[3], const double pos[3], const double rot[9]) {
	dGeomID g = dCreateBox(s->root, size[0], size[1], size[2]);
	dGeomSetPosition(g, pos[0], pos[1], pos[2]);
	dMatrix3 R;
	to_ode(rot, R);
	dGeomSetRotation(g, R);
	dGeomSetData(g, &s->static_gi);
}

static void robot_destroy(robot *r) {
	if (!r->used) {
		return;
	}
	for (int i = 0; i < r->nj; i++) {
		dJointDestroy(r->joint[i]);
	}
	for (int i = 0; i < r->nb; i++) {
		if (r->geom[i]) {
			dGeomDestroy(r->geom[i]);
		}
		dBodyDestroy(r->body[i]);
	}
	dSpaceDestroy(r->space);
	memset(r, 0, sizeof(*r));
}

void ps_free(ps_scene *s) {
	if (!s) {
		return;
	}
	for (int i = 0; i < s->nrobots; i++) {
		robot_destroy(s->robots[i]);
		free(s->robots[i]);
	}
	free(s->robots);
	dJointGroupDestroy(s->group);
	dGeomDestroy(s->ball_geom);
	dBodyDestroy(s->ball);
	dGeomDestroy(s->plane);
	dSpaceDestroy(s->root);
	if (s->pool) {
		dThreadingImplementationShutdownProcessing(s->impl);
		dThreadingFreeThreadPool(s->pool);
	}
	dWorldSetStepThreadingImplementation(s->world, NULL, NULL);
	dThreadingFreeImplementation(s->impl);
	dWorldDestroy(s->world);
	free(s);
	ode_release();
}

int ps_slots(ps_scene *s) { return s->nrobots; }
long ps_stats_contacts(ps_scene *s) { return s->total_contacts; }

// world = pos + rot * rel
static void xform(const double pos[3], const double rot[9], const double rel[3], double out[3]) {
	for (int i = 0; i < 3; i++) {
		out[i] = pos[i] + rot[3 * i] * rel[0] + rot[3 * i + 1] * rel[1] + rot[3 * i + 2] * rel[2];
	}
}

static void rot3(const double rot[9], const double v[3], double out[3]) {
	for (int i = 0; i < 3; i++) {
		out[i] = rot[3 * i] * v[0] + rot[3 * i + 1] * v[1] + rot[3 * i + 2] * v[2];
	}
}

static void to_ode(const double rot[9], dMatrix3 R) {
	for (int i = 0; i < 3; i++) {
		for (int j = 0; j < 3; j++) {
			R[4 * i + j] = rot[3 * i + j];
		}
		R[4 * i + 3] = 0;
	}
}

int ps_add_robot(ps_scene *s, const ps_body_spec *b, int nb, const ps_joint_spec *j, int nj, int torso, int head,
                 const double pos[3], const double rot[9]) {
	if (nb > PS_MAX_BODIES || nj > PS_MAX_JOINTS || torso < 0 || torso >= nb || head < 0 || head >= nb) {
		return -1;
	}
	dAllocateODEDataForThread(dAllocateMaskAll);
	int id = -1;
	for (int i = 0; i < s->nrobots; i++) {
		if (!s->robots[i]->used) {
			id = i;
			break;
		}
	}
	if (id < 0) {
		if (s->nrobots == s->cap) {
			int cap = s->cap ? 2 * s->cap : 4;
			robot **n = realloc(s->robots, cap * sizeof(robot *));
			if (!n) {
				return -1;
			}
			s->robots = n;
			s->cap = cap;
		}
		robot *nr = calloc(1, sizeof(robot));
		if (!nr) {
			return -1;
		}
		s->robots[s->nrobots] = nr;
		id = s->nrobots++;
	}
	robot *r = s->robots[id];
	memset(r, 0, sizeof(*r));
	r->used = 1;
	r->nb = nb;
	r->nj = nj;
	r->torso = torso;
	r->head = head;
	r->space = dHashSpaceCreate(s->root);
	dMatrix3 R;
	to_ode(rot, R);
	for (int i = 0; i < nb; i++) {
		const ps_body_spec *bs = &b[i];
		dBodyID body = dBodyCreate(s->world);
		dMass m;
		switch (bs->shape) {
		case PS_SHAPE_BOX:
			dMassSetBoxTotal(&m, bs->mass, bs->size[0], bs->size[1], bs->size[2]);
			break;
		case PS_SHAPE_SPHERE:
			dMassSetSphereTotal(&m, bs->mass, bs->size[0]);
			break;
		default:
			dMassSetCapsuleTotal(&m, bs->mass, 3, bs->size[0], bs->size[1]);
		}
		dBodySetMass(body, &m);
		double w[3];
		xform(pos, rot, bs->pos, w);
		dBodySetPosition(body, w[0], w[1], w[2]);
		dBodySetRotation(body, R);
		r->body[i] = body;
		r->lin_drag[i] = bs->lin_drag;
		r->ang_drag[i] = bs->ang_drag;
		r->gi[i] = (ginfo){id, bs->surface, bs->frp};
		if (bs->surface != PS_SURF_NONE) {
			dGeomID g;
			switch (bs->shape) {
			case PS_SHAPE_BOX:
				g = dCreateBox(r->space, bs->size[0], bs->size[1], bs->size[2]);
				break;
			case PS_SHAPE_SPHERE:
				g = dCreateSphere(r->space, bs->size[0]);
				break;
			default:
				g = dCreateCapsule(r->space, bs->size[0], bs->size[1]);
			}
			dGeomSetBody(g, body);
			dGeomSetData(g, &r->gi[i]);
			r->geom[i] = g;
		}
	}
	for (int i = 0; i < nj; i++) {
		const ps_joint_spec *js = &j[i];
		dJointID h = dJointCreateHinge(s->world, 0);
		dJointAttach(h, r->body[js->child], r->body[js->parent]);
		double a[3], ax[3];
		xform(pos, rot, js->anchor, a);
		rot3(rot, js->axis, ax);
		dJointSetHingeAnchor(h, a[0], a[1], a[2]);
		dJointSetHingeAxis(h, ax[0], ax[1], ax[2]);
		dJointSetHingeParam(h, dParamLoStop, js->lo);
		dJointSetHingeParam(h, dParamHiStop, js->hi);
		dJointSetHingeParam(h, dParamFMax, js->fmax);
		dJointSetHingeParam(h, dParamCFM, js->cfm);
		dJointSetHingeParam(h, dParamStopCFM, js->stop_cfm);
		dJointSetHingeParam(h, dParamStopERP, js->stop_erp);
		dJointSetHingeParam(h, dParamFudgeFactor, js->fudge);
		dJointSetHingeParam(h, dParamBounce, js->bounce);
		dJointSetHingeParam(h, dParamVel, 0);
		r->joint[i] = h;
		r->child[i] = js->child;
		r->max_speed[i] = js->max_speed;
	}
	return id;
}

void ps_remove_robot(ps_scene *s, int id) {
	if (id < 0 || id >= s->nrobots) {
		return;
	}
	robot_destroy(s->robots[id]);
}

void ps_place(ps_scene *s, int id, const double pos[3], const double rot[9], double clear) {
	if (id < 0 || id >= s->nrobots || !s->robots[id]->used) {
		return;
	}
	robot *r = s->robots[id];
	const dReal *tp = dBodyGetPosition(r->body[r->torso]);
	const dReal *tr = dBodyGetRotation(r->body[r->torso]);
	double P0[3] = {tp[0], tp[1], tp[2]};
	// D = rot * tr^T
	double D[9];
	for (int i = 0; i < 3; i++) {
		for (int k = 0; k < 3; k++) {
			D[3 * i + k] = rot[3 * i] * tr[4 * k] + rot[3 * i + 1] * tr[4 * k + 1] + rot[3 * i + 2] * tr[4 * k + 2];
		}
	}
	for (int i = 0; i < r->nb; i++) {
		dBodyID b = r->body[i];
		const dReal *bp = dBodyGetPosition(b);
		const dReal *br = dBodyGetRotation(b);
		double rel[3] = {bp[0] - P0[0], bp[1] - P0[1], bp[2] - P0[2]};
		double w[3];
		xform(pos, D, rel, w);
		dMatrix3 NR;
		for (int a = 0; a < 3; a++) {
			for (int c = 0; c < 3; c++) {
				NR[4 * a + c] = D[3 * a] * br[c] + D[3 * a + 1] * br[4 + c] + D[3 * a + 2] * br[8 + c];
			}
			NR[4 * a + 3] = 0;
		}
		dBodySetPosition(b, w[0], w[1], w[2]);
		dBodySetRotation(b, NR);
		dBodySetLinearVel(b, 0, 0, 0);
		dBodySetAngularVel(b, 0, 0, 0);
		dBodyEnable(b);
	}
	if (clear >= 0) {
		double lo = INFINITY;
		for (int i = 0; i < r->nb; i++) {
			if (r->geom[i]) {
				dReal aabb[6];
				dGeomGetAABB(r->geom[i], aabb);
				if (aabb[4] < lo) {
					lo = aabb[4];
				}
			}
		}
		if (isfinite(lo)) {
			for (int i = 0; i < r->nb; i++) {
				const dReal *bp = dBodyGetPosition(r->body[i]);
				dBodySetPosition(r->body[i], bp[0], bp[1], bp[2] + clear - lo);
			}
		}
	}
	r->lastv[0] = r->lastv[1] = r->lastv[2] = 0;
}

void ps_set_ball(ps_scene *s, const double pos[3], const double vel[3]) {
	dBodySetPosition(s->ball, pos[0], pos[1], pos[2]);
	dBodySetLinearVel(s->ball, vel[0], vel[1], vel[2]);
	dBodySetAngularVel(s->ball, 0, 0, 0);
	dBodyEnable(s->ball);
}

static void near_cb(void *data, dGeomID o1, dGeomID o2) {
	ps_scene *s = data;
	if (dGeomIsSpace(o1) || dGeomIsSpace(o2)) {
		// Between a robot's space and anything else; never inside one
		// (inner collision disabled).
		dSpaceCollide2(o1, o2, data, near_cb);
		return;
	}
	ginfo *g1 = dGeomGetData(o1), *g2 = dGeomGetData(o2);
	if (!g1 || !g2 || g1->surface < 0 || g2->surface < 0) {
		return;
	}
	if (g1->robot >= 0 && g1->robot == g2->robot) {
		return;
	}
	dBodyID b1 = dGeomGetBody(o1), b2 = dGeomGetBody(o2);
	if (!b1 && !b2) {
		return; // fixed against fixed (the plane and a wall)
	}
	if (b1 && b2 && dAreConnectedExcluding(b1, b2, dJointTypeContact)) {
		return;
	}
	dContact c[PS_MAX_CONTACTS];
	int n = dCollide(o1, o2, s->p.max_contacts, &c[0].geom, sizeof(dContact));
	const ps_surface *sf = &s->p.surf[g1->surface][g2->surface];
	for (int i = 0; i < n; i++) {
		c[i].surface.mode = sf->mode;
		c[i].surface.mu = sf->mu;
		c[i].surface.mu2 = 0;
		c[i].surface.bounce = sf->bounce;
		c[i].surface.bounce_vel = sf->bounce_vel;
		c[i].surface.soft_erp = sf->soft_erp;
		c[i].surface.soft_cfm = sf->soft_cfm;
		c[i].surface.slip1 = sf->slip1;
		c[i].surface.slip2 = sf->slip2;
		dJointID j = dJointCreateContact(s->world, s->group, &c[i]);
		dJointAttach(j, b1, b2);
		if (g1->robot >= 0) {
			s->robots[g1->robot]->contacts++;
		}
		if (g2->robot >= 0) {
			s->robots[g2->robot]->contacts++;
		}
		s->total_contacts++;
		if ((g1->frp < 0 && g2->frp < 0) || s->nfb >= PS_MAX_FB || s->nrec + 2 > PS_MAX_FB) {
			continue;
		}
		int q = s->nfb++;
		dJointSetFeedback(j, &s->fb[q]);
		for (int k = 0; k < 2; k++) {
			ginfo *g = k == 0 ? g1 : g2;
			if (g->frp < 0) {
				continue;
			}
			int f = s->nrec++;
			s->rec_robot[f] = g->robot;
			s->rec_foot[f] = g->frp;
			s->rec_is1[f] = k == 0;
			s->rec_fb[f] = q;
			s->rec_pos[f][0] = c[i].geom.pos[0];
			s->rec_pos[f][1] = c[i].geom.pos[1];
			s->rec_pos[f][2] = c[i].geom.pos[2];
		}
	}
}

static void drag(dBodyID b, double lin, double ang, double factor, double base) {
	const dReal *v = dBodyGetLinearVel(b);
	const dReal *w = dBodyGetAngularVel(b);
	double fl = lin, fa = ang;
	if (factor > 0) {
		double sv = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
		double sw = sqrt(w[0] * w[0] + w[1] * w[1] + w[2] * w[2]);
		fl += pow(base, -sv) * factor * lin;
		fa += pow(base, -sw) * factor * ang;
	}
	dBodyAddForce(b, -fl * v[0], -fl * v[1], -fl * v[2]);
	dBodyAddTorque(b, -fa * w[0], -fa * w[1], -fa * w[2]);
}

// rotT: out = R^T v, with R an ODE 3x4 matrix.
static void rotT(const dReal *R, const double v[3], double out[3]) {
	for (int i = 0; i < 3; i++) {
		out[i] = R[i] * v[0] + R[4 + i] * v[1] + R[8 + i] * v[2];
	}
}

void ps_step(ps_scene *s, const double *vel, double *out, int stride) {
	dAllocateODEDataForThread(dAllocateMaskAll);
	const double dt = s->p.dt;
	for (int id = 0; id < s->nrobots; id++) {
		robot *r = s->robots[id];
		if (!r->used) {
			continue;
		}
		const double *v = vel + (size_t)id * PS_MAX_JOINTS;
		for (int i = 0; i < r->nj; i++) {
			if (isnan(v[i])) {
				continue;
			}
			float f = (float)v[i];
			float m = (float)r->max_speed[i];
			if (f > m) {
				f = m;
			} else if (f < -m) {
				f = -m;
			}
			dJointSetHingeParam(r->joint[i], dParamVel, f);
			if (f != 0 && !dBodyIsEnabled(r->body[r->child[i]])) {
				dBodyEnable(r->body[r->child[i]]);
			}
		}
		// PrePhysicsUpdate: drag, then the accelerometer.
		for (int i = 0; i < r->nb; i++) {
			drag(r->body[i], r->lin_drag[i], r->ang_drag[i], 0, 0);
		}
		dBodyID t = r->body[r->torso];
		const dReal *tv = dBodyGetLinearVel(t);
		double a[3] = {(tv[0] - r->lastv[0]) / dt, (tv[1] - r->lastv[1]) / dt,
		               (tv[2] - r->lastv[2]) / dt + s->p.gravity};
		rotT(dBodyGetRotation(t), a, r->acc);
		r->lastv[0] = tv[0];
		r->lastv[1] = tv[1];
		r->lastv[2] = tv[2];
		r->contacts = 0;
	}
	drag(s->ball, s->p.ball_lin_drag, s->p.ball_ang_drag, s->p.ball_decel_factor, s->p.ball_decel_base);
	s->nfb = 0;
	s->nrec = 0;
	dSpaceCollide(s->root, s, near_cb);
	dWorldStep(s->world, dt);
	for (int id = 0; id < s->nrobots; id++) {
		robot *r = s->robots[id];
		double *o = out + (size_t)id * stride;
		if (!r->used) {
			continue;
		}
		dBodyID t = r->body[r->torso];
		const dReal *R = dBodyGetRotation(t);
		const dReal *w = dBodyGetAngularVel(t);
		double wv[3] = {w[0], w[1], w[2]}, wl[3];
		rotT(R, wv, wl);
		for (int i = 0; i < 3; i++) {
			o[PS_OUT_GYR + i] = wl[i] * (180.0 / M_PI);
			o[PS_OUT_ACC + i] = r->acc[i];
		}
		const dReal *HR = dBodyGetRotation(r->body[r->head]);
		for (int i = 0; i < 3; i++) {
			for (int k = 0; k < 3; k++) {
				o[PS_OUT_TORSO_R + 3 * i + k] = R[4 * i + k];
				o[PS_OUT_HEAD_R + 3 * i + k] = HR[4 * i + k];
			}
		}
		const dReal *lv = dBodyGetLinearVel(t);
		for (int i = 0; i < 3; i++) {
			o[PS_OUT_LINVEL + i] = lv[i];
			o[PS_OUT_ANGVEL + i] = w[i];
		}
		o[PS_OUT_CONTACTS] = r->contacts;
		o[PS_OUT_ENABLED] = dBodyIsEnabled(t);
		for (int i = 0; i < r->nj; i++) {
			o[PS_OUT_ANGLES + i] = dJointGetHingeAngle(r->joint[i]);
		}
		double *bp = o + PS_OUT_ANGLES + r->nj;
		for (int i = 0; i < r->nb; i++) {
			const dReal *p = dBodyGetPosition(r->body[i]);
			bp[3 * i] = p[0];
			bp[3 * i + 1] = p[1];
			bp[3 * i + 2] = p[2];
		}
		memset(o + PS_OUT_FRP, 0, 14 * sizeof(double));
	}
	// FRP: forces of the feet's contact joints, centre weighted by force.
	double sumc[2][3], sumf[2][3], sumw[2];
	for (int id = 0; id < s->nrobots; id++) {
		robot *r = s->robots[id];
		if (!r->used) {
			continue;
		}
		memset(sumc, 0, sizeof sumc);
		memset(sumf, 0, sizeof sumf);
		memset(sumw, 0, sizeof sumw);
		int touch[2] = {0, 0};
		int footbody[2] = {-1, -1};
		for (int f = 0; f < s->nrec; f++) {
			if (s->rec_robot[f] != id) {
				continue;
			}
			int k = s->rec_foot[f];
			const dJointFeedback *fb = &s->fb[s->rec_fb[f]];
			const dReal *F = s->rec_is1[f] ? fb->f1 : fb->f2;
			double m = sqrt(F[0] * F[0] + F[1] * F[1] + F[2] * F[2]);
			for (int i = 0; i < 3; i++) {
				sumf[k][i] += F[i];
				sumc[k][i] += s->rec_pos[f][i] * m;
			}
			sumw[k] += m;
			touch[k] = 1;
		}
		for (int i = 0; i < r->nb; i++) {
			if (r->gi[i].frp >= 0 && r->gi[i].frp < 2) {
				footbody[r->gi[i].frp] = i;
			}
		}
		double *o = out + (size_t)id * stride + PS_OUT_FRP;
		for (int k = 0; k < 2; k++) {
			if (!touch[k] || footbody[k] < 0) {
				continue;
			}
			dBodyID fbody = r->body[footbody[k]];
			const dReal *fp = dBodyGetPosition(fbody);
			const dReal *fr = dBodyGetRotation(fbody);
			double c[3];
			for (int i = 0; i < 3; i++) {
				c[i] = (sumw[k] > 0 ? sumc[k][i] / sumw[k] : fp[i]) - fp[i];
			}
			double cl[3], fl[3];
			rotT(fr, c, cl);
			rotT(fr, sumf[k], fl);
			o[7 * k] = 1;
			for (int i = 0; i < 3; i++) {
				o[7 * k + 1 + i] = cl[i];
				o[7 * k + 4 + i] = fl[i];
			}
		}
	}
	dJointGroupEmpty(s->group);
	double *bo = out + (size_t)s->nrobots * stride;
	const dReal *bp = dBodyGetPosition(s->ball);
	const dReal *bv = dBodyGetLinearVel(s->ball);
	for (int i = 0; i < 3; i++) {
		bo[i] = bp[i];
		bo[3 + i] = bv[i];
	}
}
