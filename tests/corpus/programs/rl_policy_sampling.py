"""REINFORCE on a toy environment: a compiled act(obs, epsilon) mixes the policy's softmax with an epsilon that
decays every episode (a Python float), samples from a Categorical and returns a.item() with the log-probability;
6 episodes of 5 steps (blind round 10)."""
import torch
import torch.nn as nn

N_ACT, OBS = 4, 8


class Policy(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(OBS, 32), nn.Tanh(), nn.Linear(32, N_ACT))

    def forward(self, obs):
        return self.net(obs)


def env_step(obs, action):
    reward = 1.0 if action == int(obs.argmax()) % N_ACT else 0.0
    return torch.randn(OBS), reward


def main():
    torch.manual_seed(0)
    policy = Policy()
    opt = torch.optim.Adam(policy.parameters(), lr=1e-2)

    @torch.compile(backend="aot_eager")
    def act(obs, epsilon):
        probs = torch.softmax(policy(obs), -1)
        probs = (1 - epsilon) * probs + epsilon / N_ACT
        dist = torch.distributions.Categorical(probs=probs)
        a = dist.sample()
        return a.item(), dist.log_prob(a)

    epsilon = 0.5
    for episode in range(6):
        obs, logps, rewards = torch.randn(OBS), [], []
        for t in range(5):
            a, logp = act(obs, epsilon)
            obs, r = env_step(obs, a)
            logps.append(logp); rewards.append(r)
        ret = torch.tensor(rewards).sum()
        loss = -(torch.stack(logps) * ret).sum()
        opt.zero_grad(); loss.backward(); opt.step()
        epsilon = max(0.05, epsilon * 0.8)
        print(f"episode {episode} return {ret.item():.1f} eps {epsilon:.3f}")


if __name__ == "__main__":
    main()
