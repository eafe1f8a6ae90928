"""HLO programs for the oracle: decoding (python3-protobuf, hlo_subset.proto)
and the FLOPs/bytes cost model of docs/analyses.md ("FLOPs and bytes"),
written from that page, not from xtop's C code.

A Program holds every instruction of one module with its computed cost:
inst.flops (None = no estimate) and inst.bytes (None = no estimate).
"""

import math
import re

TUPLE, OPAQUE, TOKEN, BUFFER = 13, 14, 17, 34

# Bits per element of each PrimitiveType (sub-byte ints and F4 take a byte
# each unless the layout packs them).
TYPE_BITS = {1: 8, 2: 8, 6: 8, 3: 16, 7: 16, 10: 16, 16: 16, 4: 32, 8: 32, 11: 32,
             5: 64, 9: 64, 12: 64, 15: 64, 18: 128, 30: 1, 31: 1, 26: 2, 27: 2,
             21: 8, 22: 8, 32: 8, 19: 8, 20: 8, 23: 8, 24: 8, 25: 8, 28: 8, 29: 8, 33: 8}

TRANSCENDENTAL = {'exponential', 'log', 'logistic', 'power', 'sqrt', 'cbrt', 'rsqrt', 'tanh',
                  'sine', 'cosine', 'exponential-minus-one', 'log-plus-one', 'atan2', 'tan',
                  'erf'}
ELEMENTWISE = {'add', 'subtract', 'multiply', 'divide', 'remainder', 'maximum', 'minimum',
               'negate', 'abs', 'sign', 'floor', 'ceil', 'round-nearest-afz',
               'round-nearest-even', 'clamp', 'select', 'compare', 'and', 'or', 'xor', 'not',
               'shift-left', 'shift-right-arithmetic', 'shift-right-logical', 'convert',
               'is-finite', 'real', 'imag', 'complex', 'popcnt', 'count-leading-zeros',
               'reduce-precision', 'stochastic-convert'}
LAUNCH_NOTHING = {'parameter', 'constant', 'get-tuple-element', 'tuple', 'bitcast', 'after-all',
                  'add-dependency', 'opt-barrier', 'domain'}
NO_DATA = {'parameter', 'constant', 'get-tuple-element', 'bitcast', 'after-all',
           'add-dependency', 'domain', 'opt-barrier', 'partition-id', 'replica-id'}
NO_MODEL = {'triangular-solve', 'cholesky', 'batch-norm-training', 'batch-norm-inference',
            'batch-norm-grad', 'fft'}
GEMM = {'__cublas$gemm', '__cublas$lt$matmul', '__cublas$lt$matmul$f8',
        '__cublas$lt$matmul$mx'}
CONV = {'__cudnn$convForward', '__cudnn$convBackwardInput', '__cudnn$convBackwardFilter',
        '__cudnn$convBiasActivationForward', '__cudnn$convForwardGraph'}


class Shape:
    def __init__(self, sp):
        self.type = sp.element_type
        self.kids = [Shape(c) for c in sp.tuple_shapes]
        self.dims = list(sp.dimensions)
        bits = sp.layout.element_size_in_bits if sp.HasField('layout') else 0
        if not (0 < bits <= 128):
            bits = TYPE_BITS.get(self.type, 0)
        if self.type == BUFFER and self.kids:
            k = self.kids[0]
            self.type, self.kids, self.dims, self.elements, self.bytes = \
                k.type, k.kids, k.dims, k.elements, k.bytes
            return
        if self.type == TUPLE or self.kids:
            self.is_tuple = True
            self.elements = 0
            self.bytes = sum(k.bytes for k in self.kids)
            return
        self.is_tuple = False
        n = 1
        for d in self.dims:
            n *= d if d > 0 else 0
        if self.type in (TOKEN, OPAQUE) or bits == 0:
            self.elements, self.bytes = 0, 0
        else:
            self.elements = n
            self.bytes = n * (bits // 8) if bits >= 8 else (n * bits + 7) // 8

    @property
    def is_tuple_shape(self):
        return self.type == TUPLE or bool(self.kids)

    def size(self):
        """XLA's shape size: a tuple is its pointer table."""
        return 8 * len(self.kids) if self.is_tuple_shape else self.bytes

    def first_array(self):
        s = self
        while s.is_tuple_shape and s.kids:
            s = s.kids[0]
        return s

    def dim(self, d):
        return self.dims[d] if 0 <= d < len(self.dims) else 0


class Inst:
    pass


class Program:
    def __init__(self, pb, data, program_id):
        hp = pb.HloProto()
        hp.ParseFromString(data)
        m = hp.hlo_module
        self.name = m.name
        self.program_id = program_id
        self.entry_id = m.entry_computation_id
        self.comps = {}       # id -> (name, root_id, [Inst])
        self.by_name = {}
        self.insts = []
        for c in m.computations:
            lst = []
            for ip in c.instructions:
                i = Inst()
                i.name, i.opcode, i.id = ip.name, ip.opcode, ip.id
                i.comp = c.id
                i.shape = Shape(ip.shape)
                i.operands = list(ip.operand_ids)
                i.called = list(ip.called_computation_ids)
                i.fusion_kind = ip.fusion_kind
                i.target = ip.custom_call_target
                i.config = ip.backend_config.decode('utf-8', 'replace')
                i.fgc = ip.feature_group_count or 1
                i.bgc = ip.batch_group_count or 1
                i.lhs_contract = list(ip.dot_dimension_numbers.lhs_contracting_dimensions)
                cd = ip.convolution_dimension_numbers
                i.conv = (cd.input_batch_dimension, cd.input_feature_dimension,
                          list(cd.input_spatial_dimensions), list(cd.kernel_spatial_dimensions),
                          cd.output_feature_dimension, list(cd.output_spatial_dimensions))
                i.window = [(w.size, w.stride or 1, w.padding_low, w.padding_high,
                             w.window_dilation or 1, w.base_dilation or 1)
                            for w in ip.window.dimensions]
                i.flops = i.bytes = None
                i.state = 0
                lst.append(i)
                self.insts.append(i)
                self.by_name.setdefault(i.name, i)
            self.comps[c.id] = (c.name, c.root_id, lst)
        kernel = {}
        for i in self.insts:
            k = re.sub(r'[^A-Za-z0-9_]', '_', i.name)
            kernel.setdefault(k, []).append(i)
        self.by_kernel = {k: v[0] for k, v in kernel.items() if len(v) == 1}
        # Launch sequences (docs "Op profile", command buffers): each
        # scheduled computation's instructions in schedule order, without
        # those that launch nothing (and async dones); an async-start
        # stands for the root of the computation it wraps.
        self.seq = {}
        for i in self.insts:
            i.seq_pos = i.seq_comp = None
        wrapped = {i.called[0] for i in self.insts if i.opcode == 'async-start' and i.called}
        for cid, s in m.schedule.sequences.items():
            if cid not in self.comps or cid in self.seq or cid in wrapped:
                continue
            by_id = {x.id: x for x in self.comps[cid][2]}
            lst = []
            for iid in s.instruction_ids:
                x = by_id.get(iid)
                if x is None or x.opcode in LAUNCH_NOTHING or x.opcode.endswith('-done') and \
                        len(x.opcode) > 5:
                    continue
                if x.opcode == 'async-start' and x.called and x.called[0] in self.comps:
                    _, root, body = self.comps[x.called[0]]
                    x = next((y for y in body if y.id == root), x)
                if x.seq_pos is not None:
                    continue
                x.seq_pos, x.seq_comp = len(lst), cid
                lst.append(x)
            self.seq[cid] = lst
        # Computations called, at any depth, by a while loop.
        self.loop_comps = set()
        todo = [c for i in self.insts if i.opcode == 'while' for c in i.called]
        while todo:
            c = todo.pop()
            if c in self.loop_comps or c not in self.comps:
                continue
            self.loop_comps.add(c)
            todo.extend(cc for x in self.comps[c][2] for cc in x.called)
        for i in self.insts:
            self.cost(i, 0)

    # ---- lookups ----

    def operand(self, i, k):
        if k >= len(i.operands):
            return None
        for x in self.comps[i.comp][2]:
            if x.id == i.operands[k]:
                return x
        return None

    def called(self, i, k):
        if k >= len(i.called):
            return None
        return self.comps.get(i.called[k])

    def find_kernel(self, kernel):
        if kernel.endswith('.kd'):
            kernel = kernel[:-3]
        return self.by_kernel.get(re.sub(r'[^A-Za-z0-9_]', '_', kernel))

    def is_command_buffer(self, i):
        if i.name.startswith('command_buffer'):
            return True
        return any(self.comps.get(c, ('',))[0].startswith('command_buffer') for c in i.called)

    def in_entry(self, i):
        """Runs once per program run: not inside a while loop (CHOICE C20)."""
        return i.comp not in self.loop_comps

    # ---- cost model ----

    def comp_cost(self, comp, depth):
        """(flops or None, bytes) of every instruction of a computation."""
        if comp is None:
            return 0, 0
        f, b, unknown = 0, 0, False
        for x in comp[2]:
            self.cost(x, depth + 1)
            if x.flops is None:
                unknown = True
            else:
                f += x.flops
            if x.bytes is not None and x.bytes > 0:
                b += x.bytes
        return (None if unknown else f), b

    def reducer(self, i, depth):
        return self.comp_cost(self.called(i, 0), depth)[0]

    def default_bytes(self, i):
        b = i.shape.size()
        for k in range(len(i.operands)):
            o = self.operand(i, k)
            if o is not None:
                b += o.shape.size()
        return b

    def conv_flops(self, i, lhs, rhs, out):
        bdim, fdim, ins, ks, ofdim, outs = i.conv
        positions = 1
        for s, (size, stride, lo, hi, wdil, bdil) in enumerate(i.window):
            if s >= len(ks) or s >= len(outs) or s >= len(ins):
                return None
            kl, ol, il = rhs.dim(ks[s]), out.dim(outs[s]), lhs.dim(ins[s])
            if kl * ol > 1e8:
                return None
            valid = 0
            for k in range(kl):
                for o in range(ol):
                    u = o * stride - lo + k * wdil
                    li = int(u / bdil) if bdil > 1 else u   # C division truncates
                    if u != li * bdil or li < 0 or li >= il:
                        continue
                    valid += 1
            positions *= valid
        fma = (lhs.dim(fdim) // i.fgc) * out.dim(ofdim) * (lhs.dim(bdim) // i.bgc) * positions
        return 2 * fma

    def param_read(self, comp, p):
        # Upstream's FusionParameterReadBytes: slices read what they take,
        # a dynamic-update-slice's operand 0 is its output (read nothing),
        # any other use reads the parameter whole, once. A bitcast moves
        # nothing: its uses count as the parameter's (the GPU cost model's
        # utilizations pass through it).
        part, whole = 0, False
        todo = [(p.id, 0)]
        while todo:
            of, depth = todo.pop()
            users = 0
            for u in comp[2]:
                for k, oid in enumerate(u.operands):
                    if oid != of:
                        continue
                    if u.opcode == 'slice' or (u.opcode in ('dynamic-slice', 'gather') and k == 0):
                        part += u.shape.size()
                    elif u.opcode == 'bitcast' and depth < 8:
                        todo.append((u.id, depth + 1))
                    elif not (u.opcode == 'dynamic-update-slice' and k == 0):
                        whole = True
                    users += 1
                    break
            if not users and depth:
                whole = True  # a bitcast nothing reads (the root): whole
        return part + (p.shape.size() if whole else 0)

    def cost(self, i, depth):
        if i.state == 1:
            return
        if i.state == 2 or depth > 64:
            i.flops = i.bytes = None
            return
        i.state = 2
        out = i.shape
        o0, o1 = self.operand(i, 0), self.operand(i, 1)
        op = i.opcode
        flops, nbytes = 0, self.default_bytes(i)
        if op in NO_DATA:
            nbytes = 0
        elif op == 'tuple':
            nbytes = out.size()
        elif op in TRANSCENDENTAL:
            flops = 0
        elif op in ELEMENTWISE:
            flops = out.elements
        elif op == 'dot' and o0 is not None:
            w = 1
            for d in i.lhs_contract:
                w *= o0.shape.dim(d)
            flops = 2 * out.elements * w
        elif op == 'convolution' and o0 is not None and o1 is not None:
            flops = self.conv_flops(i, o0.shape, o1.shape, out)
        elif op == 'reduce' and o0 is not None:
            r = self.reducer(i, depth)
            red = o0.shape.first_array().elements - out.first_array().elements
            flops = None if r is None else r * max(red, 0)
        elif op == 'reduce-window':
            r = self.reducer(i, depth)
            win = 1
            for w in i.window:
                win *= w[0]
            flops = None if r is None else r * (win - 1) * out.first_array().elements
        elif op == 'map':
            r = self.reducer(i, depth)
            flops = None if r is None else r * out.elements
        elif op == 'fusion':
            comp = self.called(i, 0)
            flops, _ = self.comp_cost(comp, depth)
            if comp is None:
                pass
            else:
                root = next((x for x in comp[2] if x.id == comp[1]), None)
                if root is not None and root.opcode == 'dynamic-update-slice' and \
                        self.operand(root, 1) is not None:
                    nbytes = self.operand(root, 1).shape.size()
                elif root is not None and root.opcode == 'tuple':
                    # Each element as upstream's HandleFusion looks through
                    # a tuple root: a dynamic-update-slice writes its update.
                    nbytes = 0
                    for k in range(len(root.operands)):
                        el = self.operand(root, k)
                        if el is None:
                            continue
                        if el.opcode == 'dynamic-update-slice' and \
                                self.operand(el, 1) is not None:
                            nbytes += self.operand(el, 1).shape.size()
                        else:
                            nbytes += el.shape.bytes
                else:
                    nbytes = out.bytes
                for x in comp[2]:
                    if x.opcode == 'parameter':
                        nbytes += self.param_read(comp, x)
        elif op in ('call', 'async-start'):
            flops, nbytes = self.comp_cost(self.called(i, 0), depth)
        elif op == 'while':
            fb, bb = self.comp_cost(self.called(i, 0), depth) if i.called else (0, 0)
            fc, bc = self.comp_cost(self.called(i, 1), depth) if len(i.called) > 1 else (0, 0)
            flops = None if fb is None or fc is None else fb + fc
            nbytes = bb + bc
        elif op == 'conditional':
            flops, nbytes, unk = 0, 0, False
            for k in range(len(i.called)):
                f, b = self.comp_cost(self.called(i, k), depth)
                if f is None:
                    unk = True
                else:
                    flops = max(flops, f)
                nbytes = max(nbytes, b)
            if unk:
                flops = None
        elif op == 'slice':
            nbytes = 2 * out.size()
        elif op == 'dynamic-slice':
            nbytes = 2 * out.size() + (o1.shape.size() if o1 is not None else 0)
        elif op == 'dynamic-update-slice':
            o2 = self.operand(i, 2)
            nbytes = (2 * o1.shape.size() if o1 is not None else 0) + \
                (o2.shape.size() if o2 is not None else 0)
        elif op == 'gather':
            nbytes = 2 * out.size() + (o1.shape.size() if o1 is not None else 0)
        elif op == 'scatter':
            upd = self.operand(i, len(i.operands) - 1 if i.operands else 0)
            r = self.reducer(i, depth)
            ue = upd.shape.first_array().elements if upd is not None else 0
            nbytes = (3 * upd.shape.size() if upd is not None else 0) + \
                (o1.shape.size() if o1 is not None else 0)
            flops = None if r is None else r * ue
        elif op in ('all-reduce', 'all-reduce-start'):
            flops = sum(k.elements for k in out.kids) if out.is_tuple_shape else out.elements
            nbytes = out.bytes + sum(self.operand(i, k).shape.size()
                                     for k in range(len(i.operands))
                                     if self.operand(i, k) is not None)
        elif op == 'sort' and o0 is not None:
            n = o0.shape.first_array().elements
            flops = n * math.ceil(math.log2(n)) if n > 1 else 0
        elif op == 'custom-call':
            res = out.first_array()
            if i.target in GEMM and o0 is not None:
                dims = i.lhs_contract or [int(x) for x in re.findall(
                    r'[0-9]+', (re.search(r'"lhs_contracting_dimensions"\s*:\s*\[([^\]]*)\]',
                                          i.config) or re.match('()', '')).group(1))]
                if dims:
                    w = 1
                    for d in dims:
                        w *= o0.shape.dim(d)
                    flops = 2 * res.elements * w
                else:
                    flops = None
                nbytes = res.bytes + o0.shape.size() + (o1.shape.size() if o1 is not None else 0)
            elif i.target in CONV and o0 is not None and o1 is not None:
                flops = self.conv_flops(i, o0.shape, o1.shape, res)
                nbytes = res.bytes + o0.shape.size() + o1.shape.size()
            else:
                flops = nbytes = None
        elif op in NO_MODEL:
            flops = None
        i.flops, i.bytes = flops, nbytes
        i.state = 1

    def category(self, i):
        if i.opcode == 'fusion':
            return {'kLoop': 'loop fusion', 'kInput': 'input fusion',
                    'kOutput': 'output fusion', 'kCustom': 'custom fusion'}.get(
                        i.fusion_kind, 'fusion')
        if i.opcode == 'custom-call':
            if i.target.startswith('__cublas$'):
                return 'gemm'
            if i.target.startswith('__cudnn$conv'):
                return 'convolution'
            return 'custom-call'
        return i.opcode
